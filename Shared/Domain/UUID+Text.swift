public import Foundation

/// UUIDs made, written and read without Foundation's text conversions (`uuidString` then
/// `lowercased()`, `UUID(uuidString:)`), which every order, event and notification would
/// otherwise pay several times. Random bits come from the standard library's
/// `SystemRandomNumberGenerator`, the system's cryptographic source.
extension UUID {
    /// A random (version 4) UUID.
    public static func random() -> UUID {
        var uuid = randomBytes()
        uuid.6 = (uuid.6 & 0x0f) | 0x40
        uuid.8 = (uuid.8 & 0x3f) | 0x80
        return UUID(uuid: uuid)
    }

    /// A time-ordered (version 7, RFC 9562) UUID: the Unix time in milliseconds in its first 48
    /// bits, then random bits. Rows keyed by such ids are added at the end of their index rather
    /// than at a random place in it, so a write touches the pages the previous ones did instead
    /// of one more page per row. What it gives away is the millisecond the thing was made, which
    /// every record here also shows as `created_at`.
    public static func timeOrdered(at date: Date = Date()) -> UUID {
        var uuid = randomBytes()
        let milliseconds = UInt64(max(0, date.timeIntervalSince1970 * 1000))
        withUnsafeMutableBytes(of: &uuid) { bytes in
            for index in 0..<6 { bytes[index] = UInt8(truncatingIfNeeded: milliseconds >> (40 - 8 * index)) }
            bytes[6] = (bytes[6] & 0x0f) | 0x70
            bytes[8] = (bytes[8] & 0x3f) | 0x80
        }
        return UUID(uuid: uuid)
    }

    /// 16 random bytes.
    /// 16 random bytes from the C library's `arc4random_buf`, a cryptographic generator kept
    /// per thread and seeded by the kernel (`SystemRandomNumberGenerator` made a system call for
    /// every 8 bytes, two per identifier).
    private static func randomBytes() -> uuid_t {
        var uuid = zero
        withUnsafeMutableBytes(of: &uuid) { bytes in arc4random_buf(bytes.baseAddress!, bytes.count) }
        return uuid
    }

    private static let zero: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)

    /// The lower-case text form, `3f0c9a1e-…`.
    public var lowercasedText: String {
        let digits: StaticString = "0123456789abcdef"
        return withUnsafeBytes(of: uuid) { bytes in
            String(unsafeUninitializedCapacity: 36) { text in
                var position = 0
                for (index, byte) in bytes.enumerated() {
                    if index == 4 || index == 6 || index == 8 || index == 10 {
                        text[position] = UInt8(ascii: "-")
                        position += 1
                    }
                    text[position] = digits.utf8Start[Int(byte >> 4)]
                    text[position + 1] = digits.utf8Start[Int(byte & 0x0f)]
                    position += 2
                }
                return position
            }
        }
    }

    /// Reads the 36-character text form in either case; nil for anything else.
    public init?(text: String) {
        var uuid = UUID.zero
        let parsed = withUnsafeMutableBytes(of: &uuid) { output -> Bool in
            var utf8 = text.utf8.makeIterator()
            var count = 0
            var high: UInt8?
            var written = 0
            while let byte = utf8.next() {
                defer { count += 1 }
                if count == 8 || count == 13 || count == 18 || count == 23 {
                    guard byte == UInt8(ascii: "-") else { return false }
                    continue
                }
                let nibble: UInt8
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): nibble = byte - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): nibble = byte - UInt8(ascii: "a") + 10
                case UInt8(ascii: "A")...UInt8(ascii: "F"): nibble = byte - UInt8(ascii: "A") + 10
                default: return false
                }
                guard written < 16 else { return false }
                if let first = high {
                    output[written] = first << 4 | nibble
                    written += 1
                    high = nil
                } else {
                    high = nibble
                }
            }
            return count == 36 && written == 16
        }
        guard parsed else { return nil }
        self.init(uuid: uuid)
    }
}
