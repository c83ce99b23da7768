public import NIOCore

/// Writes JSON string literals into a buffer, escaping only what JSON requires (the Wire
/// envelope's text fields).
public enum JSONStringWriter {
    public static func write(_ string: String, into buffer: inout ByteBuffer) {
        buffer.writeInteger(UInt8(ascii: "\""))
        let needsEscaping = string.utf8.contains { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }
        if !needsEscaping {
            buffer.writeString(string)
        } else {
            for byte in string.utf8 {
                switch byte {
                case UInt8(ascii: "\""): buffer.writeStaticString("\\\"")
                case UInt8(ascii: "\\"): buffer.writeStaticString("\\\\")
                case 0x0A: buffer.writeStaticString("\\n")
                case 0x0D: buffer.writeStaticString("\\r")
                case 0x09: buffer.writeStaticString("\\t")
                case ..<0x20:
                    let hexDigits: StaticString = "0123456789abcdef"
                    buffer.writeStaticString("\\u00")
                    buffer.writeInteger(hexDigits.utf8Start[Int(byte >> 4)])
                    buffer.writeInteger(hexDigits.utf8Start[Int(byte & 0xF)])
                default: buffer.writeInteger(byte)
                }
            }
        }
        buffer.writeInteger(UInt8(ascii: "\""))
    }
}
