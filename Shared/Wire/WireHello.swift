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

    /// Whether `name` may name a service: 1 to 64 ASCII letters, digits, `-`, `_` and `.`. A
    /// name is logged and echoed in refusals, so nothing else (a line break, a quote) gets that far.
    public static func isServiceName(_ name: String) -> Bool {
        (1...64).contains(name.utf8.count)
            && name.utf8.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."):
                    true
                default: false
                }
            }
    }

    /// A new challenge: 16 random bytes, hex.
    public static func makeChallenge() -> String {
        var generator = SystemRandomNumberGenerator()
        return Hex.lowercased((0..<16).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
    }

    /// The caller's answer to `challenge` from `server`; nil when it holds no key for the pair.
    public static func answer(
        caller: String, server: String, challenge: String, keys: WireSecret
    ) -> WireHello? {
        guard let key = keys.pairKey(caller: caller, server: server) else { return nil }
        let proof = HMAC<SHA256>.authenticationCode(
            for: Array(signedText(caller: caller, server: server, challenge: challenge).utf8), using: key)
        return WireHello(service: caller, challenge: challenge, proof: Hex.lowercased(Array(proof)))
    }

    /// Whether this is the right answer of `service` to `challenge` from `server`.
    public func proves(challenge expected: String, to server: String, keys: WireSecret) -> Bool {
        guard challenge == expected, let proof, proof.utf8.count <= 128, let proofBytes = Hex.bytes(proof),
            let key = keys.pairKey(caller: service, server: server)
        else { return false }
        return HMAC<SHA256>.isValidAuthenticationCode(
            proofBytes,
            authenticating: Array(Self.signedText(caller: service, server: server, challenge: expected).utf8),
            using: key)
    }

    private static func signedText(caller: String, server: String, challenge: String) -> String {
        "orderly-wire/2|\(caller)|\(server)|\(challenge)"
    }
}

/// Where the keys of caller and server pairs come from: the operator's internal secret, from
/// which every pair's key is derived (`pairKey`), or the keys of a process's own pairs alone
/// (`ORDERLY_WIRE_KEYS`, made by `orderly wire-keys`), so that a process that is taken over
/// cannot pass for any service but itself. Its description never shows a key, so it cannot leak
/// into logs.
public struct WireSecret: Sendable, CustomStringConvertible {
    private enum Source: Sendable {
        case master(SymmetricKey)
        case pairs([String: SymmetricKey])
    }

    private let source: Source

    /// The operator's secret; an empty one is refused.
    public init?(_ secret: String) {
        guard !secret.isEmpty else { return nil }
        source = .master(SymmetricKey(data: Array(secret.utf8)))
    }

    /// Pair keys alone: `caller>server=<64 hex digits>` separated by commas; nil when malformed.
    public init?(pairs text: String) {
        var keys: [String: SymmetricKey] = [:]
        for item in text.split(separator: ",") {
            let parts = item.trimmingCharacters(in: .whitespaces).split(separator: "=", maxSplits: 1)
            guard parts.count == 2, parts[0].split(separator: ">").count == 2, parts[1].utf8.count == 64,
                let bytes = Hex.bytes(parts[1])
            else { return nil }
            keys[String(parts[0])] = SymmetricKey(data: bytes)
        }
        guard !keys.isEmpty else { return nil }
        source = .pairs(keys)
    }

    public var description: String { "WireSecret(redacted)" }

    /// The key `caller` proves itself to `server` with, when this process holds it: derived as
    /// `HMAC-SHA256(secret, "orderly-wire/2 key|caller|server")`, or given.
    func pairKey(caller: String, server: String) -> SymmetricKey? {
        switch source {
        case .master(let key):
            return SymmetricKey(
                data: Array(
                    HMAC<SHA256>.authenticationCode(
                        for: Array("orderly-wire/2 key|\(caller)|\(server)".utf8), using: key)))
        case .pairs(let keys):
            return keys["\(caller)>\(server)"]
        }
    }

    /// The pair's entry for `ORDERLY_WIRE_KEYS` (`caller>server=<hex>`); nil when this process
    /// does not hold the key.
    public func exportedPair(caller: String, server: String) -> String? {
        pairKey(caller: caller, server: server).map { key in
            "\(caller)>\(server)=" + key.withUnsafeBytes { Hex.lowercased($0) }
        }
    }
}
