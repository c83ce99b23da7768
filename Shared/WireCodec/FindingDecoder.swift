import Foundation

/// A decoder that checks each object's keys against the type reading it and hands every nested
/// value on through another of itself.
struct FindingDecoder: Decoder {
    let inner: any Decoder
    let finder: UnknownFields.Finder

    var codingPath: [any CodingKey] { inner.codingPath }
    var userInfo: [CodingUserInfoKey: Any] { inner.userInfo }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        let container = try inner.container(keyedBy: type)
        finder.check(inner, for: type)
        return KeyedDecodingContainer(KeyedContainer(inner: container, finder: finder))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        UnkeyedContainer(inner: try inner.unkeyedContainer(), finder: finder)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        SingleValueContainer(inner: try inner.singleValueContainer(), decoder: self)
    }
}

extension FindingDecoder {
    struct KeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let inner: KeyedDecodingContainer<Key>
        let finder: UnknownFields.Finder

        var codingPath: [any CodingKey] { inner.codingPath }
        var allKeys: [Key] { inner.allKeys }
        func contains(_ key: Key) -> Bool { inner.contains(key) }
        func decodeNil(forKey key: Key) throws -> Bool { try inner.decodeNil(forKey: key) }
        func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try inner.decode(type, forKey: key) }
        func decode(_ type: String.Type, forKey key: Key) throws -> String { try inner.decode(type, forKey: key) }
        func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try inner.decode(type, forKey: key) }
        func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try inner.decode(type, forKey: key) }
        func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try inner.decode(type, forKey: key) }
        func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try inner.decode(type, forKey: key) }
        func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try inner.decode(type, forKey: key) }
        func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try inner.decode(type, forKey: key) }
        func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try inner.decode(type, forKey: key) }
        func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try inner.decode(type, forKey: key) }
        func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try inner.decode(type, forKey: key) }
        func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try inner.decode(type, forKey: key) }
        func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try inner.decode(type, forKey: key) }
        func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try inner.decode(type, forKey: key) }

        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
            // A missing key fails as Foundation says it (`keyNotFound`), and leaves are read by its strategies.
            guard inner.contains(key), !UnknownFields.isLeaf(type) else { return try inner.decode(type, forKey: key) }
            return try UnknownFields.decode(type, from: try inner.superDecoder(forKey: key), finder)
        }

        func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
            guard inner.contains(key), try !inner.decodeNil(forKey: key) else { return nil }
            return try decode(type, forKey: key)
        }

        func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
            -> KeyedDecodingContainer<NestedKey>
        {
            _ = try inner.nestedContainer(keyedBy: type, forKey: key)  // fails as Foundation says
            return try FindingDecoder(inner: try inner.superDecoder(forKey: key), finder: finder).container(
                keyedBy: type)
        }

        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
            UnkeyedContainer(inner: try inner.nestedUnkeyedContainer(forKey: key), finder: finder)
        }

        func superDecoder() throws -> any Decoder { FindingDecoder(inner: try inner.superDecoder(), finder: finder) }

        func superDecoder(forKey key: Key) throws -> any Decoder {
            FindingDecoder(inner: try inner.superDecoder(forKey: key), finder: finder)
        }
    }

    struct UnkeyedContainer: UnkeyedDecodingContainer {
        var inner: any UnkeyedDecodingContainer
        let finder: UnknownFields.Finder

        var codingPath: [any CodingKey] { inner.codingPath }
        var count: Int? { inner.count }
        var isAtEnd: Bool { inner.isAtEnd }
        var currentIndex: Int { inner.currentIndex }
        mutating func decodeNil() throws -> Bool { try inner.decodeNil() }
        mutating func decode(_ type: Bool.Type) throws -> Bool { try inner.decode(type) }
        mutating func decode(_ type: String.Type) throws -> String { try inner.decode(type) }
        mutating func decode(_ type: Double.Type) throws -> Double { try inner.decode(type) }
        mutating func decode(_ type: Float.Type) throws -> Float { try inner.decode(type) }
        mutating func decode(_ type: Int.Type) throws -> Int { try inner.decode(type) }
        mutating func decode(_ type: Int8.Type) throws -> Int8 { try inner.decode(type) }
        mutating func decode(_ type: Int16.Type) throws -> Int16 { try inner.decode(type) }
        mutating func decode(_ type: Int32.Type) throws -> Int32 { try inner.decode(type) }
        mutating func decode(_ type: Int64.Type) throws -> Int64 { try inner.decode(type) }
        mutating func decode(_ type: UInt.Type) throws -> UInt { try inner.decode(type) }
        mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try inner.decode(type) }
        mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try inner.decode(type) }
        mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try inner.decode(type) }
        mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try inner.decode(type) }

        mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
            if UnknownFields.isLeaf(type) { return try inner.decode(type) }
            return try UnknownFields.decode(type, from: try inner.superDecoder(), finder)
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws
            -> KeyedDecodingContainer<NestedKey>
        {
            try FindingDecoder(inner: try inner.superDecoder(), finder: finder).container(keyedBy: type)
        }

        mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
            UnkeyedContainer(inner: try inner.nestedUnkeyedContainer(), finder: finder)
        }

        mutating func superDecoder() throws -> any Decoder {
            FindingDecoder(inner: try inner.superDecoder(), finder: finder)
        }
    }

    struct SingleValueContainer: SingleValueDecodingContainer {
        let inner: any SingleValueDecodingContainer
        let decoder: FindingDecoder

        var codingPath: [any CodingKey] { inner.codingPath }
        func decodeNil() -> Bool { inner.decodeNil() }
        func decode(_ type: Bool.Type) throws -> Bool { try inner.decode(type) }
        func decode(_ type: String.Type) throws -> String { try inner.decode(type) }
        func decode(_ type: Double.Type) throws -> Double { try inner.decode(type) }
        func decode(_ type: Float.Type) throws -> Float { try inner.decode(type) }
        func decode(_ type: Int.Type) throws -> Int { try inner.decode(type) }
        func decode(_ type: Int8.Type) throws -> Int8 { try inner.decode(type) }
        func decode(_ type: Int16.Type) throws -> Int16 { try inner.decode(type) }
        func decode(_ type: Int32.Type) throws -> Int32 { try inner.decode(type) }
        func decode(_ type: Int64.Type) throws -> Int64 { try inner.decode(type) }
        func decode(_ type: UInt.Type) throws -> UInt { try inner.decode(type) }
        func decode(_ type: UInt8.Type) throws -> UInt8 { try inner.decode(type) }
        func decode(_ type: UInt16.Type) throws -> UInt16 { try inner.decode(type) }
        func decode(_ type: UInt32.Type) throws -> UInt32 { try inner.decode(type) }
        func decode(_ type: UInt64.Type) throws -> UInt64 { try inner.decode(type) }

        /// A value that reads itself from this same decoder (a wrapper around one value) is read
        /// through the finding decoder too.
        func decode<T: Decodable>(_ type: T.Type) throws -> T {
            if UnknownFields.isLeaf(type) { return try inner.decode(type) }
            return try T(from: decoder)
        }
    }
}
