import Foundation
import SQLKit

/// A value as SQLite stores it.
enum SQLiteValue: Sendable, Hashable {
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])
    case null

    /// The value for a bind: numbers, text, bytes, UUIDs and `nil` as themselves; anything
    /// else as its JSON text.
    init(encoding value: any Encodable) throws {
        // The common types first: each cast costs, and an optional holding a value casts to
        // that value's type. Only what matches none of them is looked at as a possible `nil`.
        switch value {
        case let value as String: self = .text(value)
        case let value as Int: self = .integer(Int64(value))
        case let value as Int64: self = .integer(value)
        case let value as Int32: self = .integer(Int64(value))
        case let value as Int16: self = .integer(Int64(value))
        case let value as Int8: self = .integer(Int64(value))
        case let value as UInt32: self = .integer(Int64(value))
        case let value as UInt16: self = .integer(Int64(value))
        case let value as UInt8: self = .integer(Int64(value))
        case let value as Bool: self = .integer(value ? 1 : 0)
        case let value as Double: self = .real(value)
        case let value as Float: self = .real(Double(value))
        case let value as UUID: self = .text(value.lowercasedText)
        case let value as [UInt8]: self = .blob(value)
        case let value as Data: self = .blob(Array(value))
        case let optional as any OptionalValue where optional.isNil: self = .null
        default: self = .text(String(decoding: try JSONEncoder().encode(value), as: UTF8.self))
        }
    }
}

private protocol OptionalValue {
    var isNil: Bool { get }
}

extension Optional: OptionalValue {
    fileprivate var isNil: Bool { self == nil }
}

/// Decodes one column's value: scalars directly, anything structured from its JSON text.
struct SQLiteValueDecoder: Decoder, SingleValueDecodingContainer {
    let value: SQLiteValue
    var codingPath: [any CodingKey] = []
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    static func decode<D: Decodable>(_ type: D.Type, from value: SQLiteValue) throws -> D {
        do {
            return try D(from: SQLiteValueDecoder(value: value))
        } catch is NeedsJSON {
            guard case .text(let text) = value else { throw mismatch(type, value) }
            return try JSONDecoder().decode(D.self, from: Data(text.utf8))
        }
    }

    private struct NeedsJSON: Error {}

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> { throw NeedsJSON() }
    func unkeyedContainer() throws -> any UnkeyedDecodingContainer { throw NeedsJSON() }
    func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

    func decodeNil() -> Bool { value == .null }

    func decode(_ type: Bool.Type) throws -> Bool { try integer(type) != 0 }
    func decode(_ type: String.Type) throws -> String {
        switch value {
        case .text(let text): return text
        case .integer(let number): return String(number)
        case .real(let number): return String(number)
        default: throw Self.mismatch(type, value)
        }
    }
    func decode(_ type: Double.Type) throws -> Double {
        switch value {
        case .real(let number): return number
        case .integer(let number): return Double(number)
        default: throw Self.mismatch(type, value)
        }
    }
    func decode(_ type: Float.Type) throws -> Float { Float(try decode(Double.self)) }
    func decode(_ type: Int.Type) throws -> Int { try exactly(type) }
    func decode(_ type: Int8.Type) throws -> Int8 { try exactly(type) }
    func decode(_ type: Int16.Type) throws -> Int16 { try exactly(type) }
    func decode(_ type: Int32.Type) throws -> Int32 { try exactly(type) }
    func decode(_ type: Int64.Type) throws -> Int64 { try integer(type) }
    func decode(_ type: UInt.Type) throws -> UInt { try exactly(type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try exactly(type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try exactly(type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try exactly(type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try exactly(type) }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try Self.decode(type, from: value) }

    private func integer(_ type: Any.Type) throws -> Int64 {
        switch value {
        case .integer(let number): return number
        case .real(let number) where number.rounded() == number: return Int64(number)
        default: throw Self.mismatch(type, value)
        }
    }

    private func exactly<T: FixedWidthInteger>(_ type: T.Type) throws -> T {
        guard let number = T(exactly: try integer(type)) else { throw Self.mismatch(type, value) }
        return number
    }

    private static func mismatch(_ type: Any.Type, _ value: SQLiteValue) -> DecodingError {
        .typeMismatch(
            type, .init(codingPath: [], debugDescription: "cannot read \(type) from the SQLite value \(value)"))
    }
}

/// SQLite's SQL: `?` placeholders, `RETURNING` and `ON CONFLICT` (SQLite 3.35 and later).
struct EmbeddedSQLiteDialect: SQLDialect {
    var name: String { "sqlite" }
    var identifierQuote: any SQLExpression { SQLRaw("\"") }
    var literalStringQuote: any SQLExpression { SQLRaw("'") }
    /// A bare `?`, numbered by SQLite in the order it comes, which is the bind's `position`:
    /// SQLKit writes each bind's placeholder as it appends the bind. SQLite compiles `?N` by
    /// looking the number up in a list of the statement's parameters, a cost that grows with the
    /// square of their count: a 900-row notifications insert (4,500 binds) spent half the
    /// notifications service's CPU there.
    func bindPlaceholder(at position: Int) -> any SQLExpression { SQLRaw("?") }
    func literalBoolean(_ value: Bool) -> any SQLExpression { SQLRaw(value ? "TRUE" : "FALSE") }
    var literalDefault: any SQLExpression { SQLLiteral.null }
    var supportsIfExists: Bool { true }
    var supportsDropBehavior: Bool { false }
    var supportsAutoIncrement: Bool { false }
    var autoIncrementClause: any SQLExpression { SQLRaw("AUTOINCREMENT") }
    var enumSyntax: SQLEnumSyntax { .unsupported }
    var alterTableSyntax: SQLAlterTableSyntax { .init(allowsBatch: false) }
    var upsertSyntax: SQLUpsertSyntax { .standard }
    var supportsReturning: Bool { true }
    var unionFeatures: SQLUnionFeatures { [.union, .unionAll, .intersect, .except] }
    func customDataType(for dataType: SQLDataType) -> (any SQLExpression)? {
        if case .bigint = dataType { return SQLDataType.int }
        return nil
    }
}
