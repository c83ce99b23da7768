import Domain
import Foundation
public import NIOCore

/// Strict reading of a client's JSON body: the value, decoded as `WireJSON` decodes it, and every
/// field of the body that its type does not know, by path (`items[0].unit_price`).
///
/// The body is decoded through a decoder that wraps Foundation's: wherever the type opens an
/// object, the keys present are compared with the type's `CodingKeys`, and a key none of them
/// spells is unknown. So it holds for every `Decodable` type as written (synthesised or by hand),
/// nested objects and arrays included; a dictionary takes any key. Values are decoded by
/// Foundation, dates with `WireJSON`'s strategy.
public enum UnknownFields {
    /// `body` as `Value` and the paths of the fields it carries that `Value` does not know, in the
    /// order met. `alsoKnown` are top-level keys read by someone else (a PATCH's
    /// `expected_version`). A body that does not decode throws `Failure`: Foundation's error and
    /// the unknown fields met before it.
    public static func decode<Value: Decodable>(
        _ type: Value.Type, from body: ByteBuffer, alsoKnown: Set<String> = []
    ) throws(Failure) -> (value: Value, unknown: [String]) {
        let finder = Finder(alsoKnown: alsoKnown)
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = RFC3339.decodingStrategy
        decoder.userInfo[Finder.key] = finder
        do {
            let probe = try WireJSON.decode(Probe<Value>.self, from: body, using: decoder)
            return (probe.value, finder.unknown)
        } catch {
            throw Failure(error: error, unknown: finder.unknown)
        }
    }

    /// A body that did not decode: why, and the unknown fields met before.
    public struct Failure: Error {
        public var error: any Error
        public var unknown: [String]
    }

    /// A field's path as clients read it: `items[0].unit_price`.
    static func path(_ keys: [any CodingKey]) -> String {
        keys.reduce(into: "") { result, key in
            if let index = key.intValue {
                result += "[\(index)]"
            } else {
                result += result.isEmpty ? key.stringValue : ".\(key.stringValue)"
            }
        }
    }

    /// What one decoding found; used by one decoding at a time, on one thread.
    final class Finder: @unchecked Sendable {
        static let key = CodingUserInfoKey(rawValue: "orderly.unknown-fields")!
        let alsoKnown: Set<String>
        var unknown: [String] = []

        init(alsoKnown: Set<String>) { self.alsoKnown = alsoKnown }

        /// Notes the keys of the object `decoder` is at that `Key` does not spell.
        func check<Key: CodingKey>(_ decoder: any Decoder, for _: Key.Type) {
            guard let present = try? decoder.container(keyedBy: AnyKey.self) else { return }
            let topLevel = decoder.codingPath.isEmpty
            for key in present.allKeys where Key(stringValue: key.stringValue) == nil {
                if topLevel && alsoKnown.contains(key.stringValue) { continue }
                unknown.append(UnknownFields.path(decoder.codingPath + [key]))
            }
        }
    }

    /// Decodes `Value` through a `FindingDecoder`.
    struct Probe<Value: Decodable>: Decodable {
        let value: Value

        init(from decoder: any Decoder) throws {
            guard let finder = decoder.userInfo[Finder.key] as? Finder else {
                value = try Value(from: decoder)
                return
            }
            value = try UnknownFields.decode(Value.self, from: decoder, finder)
        }
    }

    /// `T` from `decoder`: the types Foundation's decoder reads by a strategy of its own (dates,
    /// data, decimals, URLs) as it reads them, the rest through the finding decoder.
    static func decode<T: Decodable>(_ type: T.Type, from decoder: any Decoder, _ finder: Finder) throws -> T {
        if isLeaf(type) { return try decoder.singleValueContainer().decode(type) }
        return try T(from: FindingDecoder(inner: decoder, finder: finder))
    }

    static func isLeaf(_ type: Any.Type) -> Bool {
        type == Date.self || type == Data.self || type == Decimal.self || type == URL.self
    }

    struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int?
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) {
            self.stringValue = "\(intValue)"
            self.intValue = intValue
        }
    }
}
