import Contracts
import Domain
import Foundation
package import Runtime

/// The payment providers the service accepts reports from, each with its signing secret:
/// `ORDERLY_PAYMENT_PROVIDER_SECRETS=name=secret[,name=secret…]`, from the environment only.
/// None by default, when every report is refused. Their reports' ids are kept
/// `ORDERLY_PAYMENT_PROVIDER_EVENTS_RETENTION_DAYS` (90) days, to tell a repeat: far longer
/// than a signature holds (five minutes). What a store or courier earns stays pending, not to
/// be paid out, for `ORDERLY_LEDGER_HOLD_HOURS` (72; 0: available at once): long enough that
/// the refunds of a sale are usually made before its money can leave.
package struct PaymentsSettings: Sendable {
    package var providerSecrets: [String: String]
    package var providerEventsRetention: Duration
    package var ledgerHold: Duration

    package init(
        providerSecrets: [String: String] = [:], providerEventsRetention: Duration = .seconds(90 * 86_400),
        ledgerHold: Duration = .seconds(72 * 3600)
    ) {
        self.providerSecrets = providerSecrets
        self.providerEventsRetention = providerEventsRetention
        self.ledgerHold = ledgerHold
    }

    static let key = "payment.provider.secrets"

    /// Reads the settings, naming the variable and what is wrong without echoing a secret.
    package static func read(from source: ConfigurationSource) throws(ConfigurationError) -> PaymentsSettings {
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
        let retention = reader.int("payment.providerEvents.retentionDays", default: 90, in: 1...3650)
        let hold = reader.int("ledger.holdHours", default: 72, in: 0...8760)
        try reader.finish()
        return PaymentsSettings(
            providerSecrets: secrets, providerEventsRetention: .seconds(retention * 86_400),
            ledgerHold: .seconds(hold * 3600))
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
