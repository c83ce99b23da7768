/// Lower-case hexadecimal text of bytes: digests and authentication codes, as they are stored
/// and sent.
public enum Hex {
    public static func lowercased(_ bytes: some Collection<UInt8>) -> String {
        let digits: StaticString = "0123456789abcdef"
        return String(unsafeUninitializedCapacity: bytes.count * 2) { text in
            var position = 0
            for byte in bytes {
                text[position] = digits.utf8Start[Int(byte >> 4)]
                text[position + 1] = digits.utf8Start[Int(byte & 0x0f)]
                position += 2
            }
            return position
        }
    }
}
