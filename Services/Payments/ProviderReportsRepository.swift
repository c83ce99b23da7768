import Contracts
import Domain
import Foundation
import SQLKit
import Storage

/// The payments service's SQL of the providers' reports received, kept by their ids so that
/// a report sent again is known.
struct ProviderReportsRepository: Sendable {
    let database: Database

    /// Records a provider's report by its event id; false when it was recorded before.
    func recordProviderEvent(provider: String, id: String, payment: PaymentID, in transaction: Transaction)
        async throws -> Bool
    {
        let seen = try await transaction.sql.raw(
            "SELECT 1 AS seen FROM provider_events WHERE provider = \(bind: provider) AND id = \(bind: id)"
        ).first()
        guard seen == nil else { return false }
        try await transaction.sql.raw(
            """
            INSERT INTO provider_events (provider, id, payment_id, received_at)
            VALUES (\(bind: provider), \(bind: id), \(bind: payment.description), \(bind: Date.nowMilliseconds))
            """
        ).run()
        return true
    }
}
