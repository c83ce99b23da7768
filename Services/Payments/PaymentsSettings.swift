import Contracts
import Domain
import Foundation
package import Runtime

/// The payment providers the service accepts reports from, each with its signing secret
/// (`ProviderSecrets`); none by default, when every report is refused. Their reports' ids are kept
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

    /// Reads the settings, naming the variable and what is wrong without echoing a secret.
    package static func read(from source: ConfigurationSource) throws(ConfigurationError) -> PaymentsSettings {
        var reader = source.settings()
        let secrets = ProviderSecrets.read(into: &reader)
        let retention = reader.int("payment.providerEvents.retentionDays", default: 90, in: 1...3650)
        let hold = reader.int("ledger.holdHours", default: 72, in: 0...8760)
        try reader.finish()
        return PaymentsSettings(
            providerSecrets: secrets, providerEventsRetention: .seconds(retention * 86_400),
            ledgerHold: .seconds(hold * 3600))
    }
}
