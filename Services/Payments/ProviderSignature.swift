import Contracts
import Crypto
public import Domain
public import Foundation
public import Runtime

/// The payment providers the service accepts reports from, each with its signing secret:
/// `ORDERLY_PAYMENT_PROVIDER_SECRETS=name=secret[,name=secret…]`, from the environment only.
/// None by default, when every report is refused.
public struct PaymentsSettings: Sendable {
    public var providerSecrets: [String: String]

    public init(providerSecrets: [String: String] = [:]) { self.providerSecrets = providerSecrets }

    static let key = "payment.provider.secrets"

    /// Reads the settings, naming the variable and what is wrong without echoing a secret.
    public static func read(from source: ConfigurationSource) throws(ConfigurationError) -> PaymentsSettings {
        var reader = source.settings()
        var secrets: [String: String] = [:]
        if let text = reader.optionalSecret(key) {
            for (index, entry) in text.split(separator: ",", omittingEmptySubsequences: false).enumerated() {
                let parts = entry.split(separator: "=", maxSplits: 1).map { String($0).trimmingWhitespace() }
                guard parts.count == 2, !parts[0].isEmpty, ProviderEvent.isValidProviderName(parts[0]) else {
                    reader.report(key, "entry \(index + 1) is not name=secret (names: letters, digits, - and _)")
                    continue
                }
                guard parts[1].utf8.count >= 16 else {
                    reader.report(key, "the secret of \(parts[0]) must be at least 16 characters")
                    continue
                }
                if secrets.updateValue(parts[1], forKey: parts[0]) != nil {
                    reader.report(key, "\(parts[0]) is named twice")
                }
            }
        }
        try reader.finish()
        return PaymentsSettings(providerSecrets: secrets)
    }
}

/// The signature a payment provider puts on each report, as Stripe does:
/// `Orderly-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>`. The time
/// must be within `PaymentsAPI.signatureToleranceSeconds` of ours, so a captured report cannot
/// be sent again later; within that window the report's own id makes a repeat harmless.
public enum ProviderSignature {
    /// The header for `body` signed with `secret` at `time`: what a provider sends.
    public static func header(body: String, secret: String, at time: Date) -> String {
        header(body: body, secret: secret, seconds: Int64(time.timeIntervalSince1970.rounded(.down)))
    }

    static func header(body: String, secret: String, seconds: Int64) -> String {
        "t=\(seconds),v1=\(Hex.lowercased(code(body: body, secret: secret, seconds: seconds)))"
    }

    /// Checks `header` against `body` and `secret` at `now`: 401 `bad_signature` when it is
    /// missing, malformed or does not match (compared in constant time), 401 `stale_signature`
    /// when its time is too far from now.
    public static func verify(
        header: String?, body: String, secret: String, now: Date, tolerance: Int
    ) throws(OrderlyError) {
        let refused = OrderlyError(
            .unauthenticated, "the Orderly-Signature header does not match the body", reason: "bad_signature")
        guard let header else {
            throw OrderlyError(.unauthenticated, "send the Orderly-Signature header", reason: "bad_signature")
        }
        var seconds: Int64?
        var candidates: [[UInt8]] = []
        for part in header.split(separator: ",") {
            let pair = part.split(separator: "=", maxSplits: 1)
            guard pair.count == 2 else { throw refused }
            switch String(pair[0]).trimmingWhitespace() {
            case "t": seconds = Int64(pair[1])
            case "v1": if let bytes = Hex.bytes(pair[1]) { candidates.append(bytes) }
            default: continue
            }
        }
        guard let seconds, !candidates.isEmpty else { throw refused }
        let expected = code(body: body, secret: secret, seconds: seconds)
        guard candidates.contains(where: { constantTimeEqual($0, expected) }) else { throw refused }
        let current = Int64(now.timeIntervalSince1970)
        guard seconds >= current - Int64(tolerance), seconds <= current + Int64(tolerance) else {
            throw OrderlyError(
                .unauthenticated, "the signature's time is more than \(tolerance) seconds from ours",
                reason: "stale_signature")
        }
    }

    private static func code(body: String, secret: String, seconds: Int64) -> [UInt8] {
        Array(
            HMAC<SHA256>.authenticationCode(
                for: Data("\(seconds).\(body)".utf8), using: SymmetricKey(data: Data(secret.utf8))))
    }

    /// Whether two byte strings are equal, taking as long whatever differs.
    private static func constantTimeEqual(_ left: [UInt8], _ right: [UInt8]) -> Bool {
        guard left.count == right.count else { return false }
        var difference: UInt8 = 0
        for index in left.indices { difference |= left[index] ^ right[index] }
        return difference == 0
    }
}

extension ProviderEvent {
    /// A provider's name: 1 to 40 letters, digits, `-` and `_`.
    static func isValidProviderName(_ name: String) -> Bool {
        (1...40).contains(name.utf8.count)
            && name.utf8.allSatisfy { $0.isASCIILetterOrDigit || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") }
    }
}

extension UInt8 {
    fileprivate var isASCIILetterOrDigit: Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(self) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(self)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self)
    }
}
