import Crypto
import Domain
import Foundation

/// The handshake that opens every connection: the caller names itself, the server answers with
/// a challenge (16 random bytes, new for each connection), and the caller proves, with the key
/// of this caller and this server, that it is the service it named:
/// `HMAC-SHA256(key(caller, server), "orderly-wire/2|caller|server|challenge")`, hex-encoded.
/// The server checks the proof in constant time. The challenge is the server's own, so a
/// recorded handshake proves nothing on another connection; the key belongs to the pair, so a
/// server, which holds the keys of its callers, cannot pass for one of them anywhere else.
///
/// Frames (all of type `hello`, id 0): the caller's `{"service"}`, the server's `{"service",
/// "challenge"}`, the caller's `{"service", "challenge", "proof"}`, the server's `{"service"}`.
public struct WireHello: Codable, Sendable, Hashable {
    public var service: String
    public var challenge: String?
    public var proof: String?

    public init(service: String, challenge: String? = nil, proof: String? = nil) {
        self.service = service
        self.challenge = challenge
        self.proof = proof
    }

    /// A new challenge: 16 random bytes, hex.
    public static func makeChallenge() -> String {
        var generator = SystemRandomNumberGenerator()
        return Hex.lowercased((0..<16).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
    }

    /// The caller's answer to `challenge` from `server`.
    public static func answer(
        caller: String, server: String, challenge: String, keys: WireSecret
    ) -> WireHello {
        let key = keys.pairKey(caller: caller, server: server)
        let proof = HMAC<SHA256>.authenticationCode(
            for: Array(signedText(caller: caller, server: server, challenge: challenge).utf8), using: key)
        return WireHello(service: caller, challenge: challenge, proof: Hex.lowercased(Array(proof)))
    }

    /// Whether this is the right answer of `service` to `challenge` from `server`.
    public func proves(challenge expected: String, to server: String, keys: WireSecret) -> Bool {
        guard challenge == expected, let proof, let proofBytes = Self.bytes(fromHex: proof) else { return false }
        return HMAC<SHA256>.isValidAuthenticationCode(
            proofBytes,
            authenticating: Array(Self.signedText(caller: service, server: server, challenge: expected).utf8),
            using: keys.pairKey(caller: service, server: server))
    }

    private static func signedText(caller: String, server: String, challenge: String) -> String {
        "orderly-wire/2|\(caller)|\(server)|\(challenge)"
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

/// The operator's internal secret, from which the key of each caller and server pair is
/// derived (`pairKey`). Its description never shows the value, so it cannot leak into logs.
public struct WireSecret: Sendable, CustomStringConvertible {
    private let key: SymmetricKey

    /// Wraps a secret; an empty one is refused.
    public init?(_ secret: String) {
        guard !secret.isEmpty else { return nil }
        self.key = SymmetricKey(data: Array(secret.utf8))
    }

    public var description: String { "WireSecret(redacted)" }

    /// The key `caller` proves itself to `server` with:
    /// `HMAC-SHA256(secret, "orderly-wire/2 key|caller|server")`.
    func pairKey(caller: String, server: String) -> SymmetricKey {
        SymmetricKey(
            data: Array(
                HMAC<SHA256>.authenticationCode(for: Array("orderly-wire/2 key|\(caller)|\(server)".utf8), using: key)))
    }
}
