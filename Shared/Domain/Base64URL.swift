public import Foundation

/// base64url (RFC 4648, section 5) without padding: how tokens, VAPID keys and browsers' push
/// keys carry bytes.
public enum Base64URL {
    public static func encoded(_ bytes: some DataProtocol) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    /// The bytes of base64url `text`, padded or not; nil when it is not base64url.
    public static func decoded(_ text: String) -> [UInt8]? {
        guard text.utf8.allSatisfy({ $0 < 128 }), !text.contains("+"), !text.contains("/") else { return nil }
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64).map(Array.init)
    }
}
