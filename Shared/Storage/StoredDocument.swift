import Domain
import Foundation
import JSON
public import SQLKit

/// A value kept whole as JSON in a text column, beside the columns queries filter and sort on.
public enum StoredDocument {
    /// The JSON text to store: keys sorted, dates as RFC 3339. A value that writes its own JSON
    /// (`JSONWritable`: the order) writes it, the same text faster.
    public static func text(_ value: some Encodable) throws -> String {
        if let writable = value as? any JSONWritable {
            return String(decoding: writable.jsonBytes(escapingSlashes: true), as: UTF8.self)
        }
        return String(decoding: try RFC3339.sortedKeysEncoder.encode(value), as: UTF8.self)
    }

    /// Reads the value stored in `column` of `row`.
    public static func decode<Value: Decodable>(_ type: Value.Type, from row: any SQLRow, column: String = "doc")
        throws -> Value
    {
        try decode(type, from: try row.decode(column: column, as: String.self))
    }

    /// Reads a value from its stored JSON text.
    public static func decode<Value: Decodable>(_ type: Value.Type, from text: String) throws -> Value {
        do {
            return try RFC3339.decoder.decode(type, from: Data(text.utf8))
        } catch {
            throw StorageError.unexpected("a stored \(Value.self) could not be read: \(error)")
        }
    }
}
