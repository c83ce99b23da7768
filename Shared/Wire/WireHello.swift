import Crypto
import Domain
public import Foundation

/// The first frame of every connection: who is calling and proof that it holds the shared
/// internal secret.
///
/// The proof is `HMAC-SHA256(secret, "orderly-wire/1|service|timestamp_ms|nonce")`, hex-encoded.
/// The server checks it in constant time and refuses timestamps more than five minutes away
/// from its own clock, so a captured hello is useless soon after. The secret never travels.
public struct WireHello: Codable, Sendable, Hashable {
    public var service: String
    public var timestampMilliseconds: Int64
    public var nonce: String
    public var proof: String

    enum CodingKeys: String, CodingKey {
        case service
        case timestampMilliseconds = "timestamp_ms"
        case nonce
        case proof
    }

    /// How far a hello's timestamp may be from the server's clock.
    public static let allowedClockSkew: Int64 = 5 * 60 * 1000

    /// A signed hello for `service`.
    public init(service: String, secret: WireSecret, now: Date = Date()) {
        self.service = service
        self.timestampMilliseconds = Int64(now.timeIntervalSince1970 * 1000)
        self.nonce = UUID().uuidString
        self.proof = ""
        self.proof = Hex.lowercased(secret.authenticationCode(for: signedText))
    }

    private var signedText: String { "orderly-wire/1|\(service)|\(timestampMilliseconds)|\(nonce)" }

    /// Whether the proof is valid for `secret` and the timestamp is fresh.
    public func isValid(secret: WireSecret, now: Date = Date()) -> Bool {
        let nowMilliseconds = Int64(now.timeIntervalSince1970 * 1000)
        guard abs(nowMilliseconds - timestampMilliseconds) <= Self.allowedClockSkew,
            let proofBytes = Self.bytes(fromHex: proof)
        else { return false }
        return secret.isValid(authenticationCode: proofBytes, for: signedText)
    }

    private static func bytes(fromHex text: String) -> [UInt8]? {
        let utf8 = Array(text.utf8)
        guard utf8.count % 2 == 0, utf8.count <= 128 else { return nil }
        var result: [UInt8] = []
        result.reserveCapacity(utf8.count / 2)
        var index = 0
        while index < utf8.count {
            guard let high = nibble(utf8[index]), let low = nibble(utf8[index + 1]) else { return nil }
            result.append(high << 4 | low)
            index += 2
        }
        return result
    }

    private static func nibble(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}

/// The shared internal secret. Its description never shows the value, so it cannot leak into logs.
public struct WireSecret: Sendable, CustomStringConvertible {
    private let key: SymmetricKey

    /// Wraps a secret; an empty one is refused.
    public init?(_ secret: String) {
        guard !secret.isEmpty else { return nil }
        self.key = SymmetricKey(data: Array(secret.utf8))
    }

    public var description: String { "WireSecret(redacted)" }

    func authenticationCode(for text: String) -> [UInt8] {
        Array(HMAC<SHA256>.authenticationCode(for: Array(text.utf8), using: key))
    }

    /// Constant-time comparison (swift-crypto's `isValidAuthenticationCode`).
    func isValid(authenticationCode: [UInt8], for text: String) -> Bool {
        HMAC<SHA256>.isValidAuthenticationCode(authenticationCode, authenticating: Array(text.utf8), using: key)
    }
}
