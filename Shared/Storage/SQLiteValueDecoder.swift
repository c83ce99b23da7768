import Foundation
import SQLKit

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
