import Crypto
public import Domain
public import Foundation

/// The signature on a body sent between Orderly and others, as Stripe signs its webhooks: the
/// contract both sides of a signed body keep.
///
/// `Orderly-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>`. Payment
/// providers sign their reports with it (the time must be within
/// `PaymentsAPI.signatureToleranceSeconds` of ours, so a captured report cannot be sent again
/// later; within that window the report's own id makes a repeat harmless), and Orderly signs
/// its webhook deliveries with it. A header may carry several `v1` codes; one that matches is
/// enough.
public enum OrderlySignature {
    /// The HTTP header that carries it.
    public static let headerName = "Orderly-Signature"

    /// The header for `body` signed with `secret` at `time`.
    public static func header(body: String, secret: String, at time: Date) -> String {
        header(body: body, secret: secret, seconds: Int64(time.timeIntervalSince1970.rounded(.down)))
    }

    /// The same at `seconds` since 1970.
    public static func header(body: String, secret: String, seconds: Int64) -> String {
        "t=\(seconds),v1=\(Hex.lowercased(code(body: body, secret: secret, seconds: seconds)))"
    }

    /// A header's time and codes, read before the body is: a request whose header is missing or
    /// malformed is refused without reading what it sent.
    public struct Parsed: Sendable {
        let seconds: Int64
        let codes: [[UInt8]]
    }

    /// Reads `header`: 401 `bad_signature` when it is missing, malformed or carries no `v1` code.
    public static func parse(_ header: String?) throws(OrderlyError) -> Parsed {
        guard let header else {
            throw OrderlyError(.badSignature, "send the Orderly-Signature header")
        }
        let malformed = OrderlyError(
            .badSignature, "the Orderly-Signature header is not t=<unix seconds>,v1=<hex code>")
        var seconds: Int64?
        var codes: [[UInt8]] = []
        for part in header.split(separator: ",") {
            let pair = part.split(separator: "=", maxSplits: 1)
            guard pair.count == 2 else { throw malformed }
            switch String(pair[0]).trimmingWhitespace() {
            case "t": seconds = Int64(pair[1])
            case "v1": if let bytes = Hex.bytes(pair[1]) { codes.append(bytes) }
            default: continue
            }
        }
        guard let seconds, !codes.isEmpty else { throw malformed }
        return Parsed(seconds: seconds, codes: codes)
    }

    /// Checks `header` against `body` and `secret` at `now`: 401 `bad_signature` when it is
    /// missing, malformed or does not match (compared in constant time), 401 `stale_signature`
    /// when its time is too far from now.
    public static func verify(
        header: String?, body: String, secret: String, now: Date, tolerance: Int
    ) throws(OrderlyError) {
        try verify(parse(header), body: body, secret: secret, now: now, tolerance: tolerance)
    }

    /// Checks a header already read against `body` and `secret` at `now`, as `verify(header:…)`.
    public static func verify(
        _ signature: Parsed, body: String, secret: String, now: Date, tolerance: Int
    ) throws(OrderlyError) {
        let signed = Data("\(signature.seconds).\(body)".utf8)
        let key = SymmetricKey(data: Data(secret.utf8))
        // Crypto compares in constant time, so the time taken tells nothing of the code.
        guard
            signature.codes.contains(where: {
                HMAC<SHA256>.isValidAuthenticationCode($0, authenticating: signed, using: key)
            })
        else {
            throw OrderlyError(
                .badSignature, "the Orderly-Signature header does not match the body")
        }
        let current = Int64(now.timeIntervalSince1970)
        let tolerance = Int64(tolerance)
        guard signature.seconds >= current - tolerance, signature.seconds <= current + tolerance else {
            throw OrderlyError(
                .staleSignature, "the signature's time is more than \(tolerance) seconds from ours")
        }
    }

    private static func code(body: String, secret: String, seconds: Int64) -> [UInt8] {
        Array(
            HMAC<SHA256>.authenticationCode(
                for: Data("\(seconds).\(body)".utf8), using: SymmetricKey(data: Data(secret.utf8))))
    }
}
