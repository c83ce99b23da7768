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
