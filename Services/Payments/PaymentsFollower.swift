import Contracts
import Domain
import Events
import Runtime
import Storage

/// Keeps a store's statistics (`StatsRepository`) from the payments service's own events:
/// `payment.completed` and `payment.refunded` each add to their day's rows, once.
struct PaymentsFollower: EventFollower {
    static let producer = PaymentsAPI.service
    static let types = [PaymentsAPI.Events.completed, PaymentsAPI.Events.refunded]
    /// The name its applied events are recorded under (the inbox).
    static let consumer = "payments.stats"

    let database: Database
    let payments: PaymentsRepository
    let stats: StatsRepository

    func apply(_ event: DomainEvent) async throws {
        let (payments, stats) = (self.payments, self.stats)
        if event.type == PaymentsAPI.Events.refunded {
            let refunded = try event.payload.decode(as: PaymentRefunded.self)
            try await database.applyOnce(event, consumer: Self.consumer) { transaction in
                let zone = try await payments.header(of: refunded.payment.id, in: transaction.sql)?.timezone
                let (row, _) = StatsContribution.refund(refunded.refund, of: refunded.payment, zone: zone)
                try await stats.add(row, in: transaction)
            }
        } else {
            let payment = try event.payload.decode(as: Payment.self)
            try await database.applyOnce(event, consumer: Self.consumer) { transaction in
                let zone = try await payments.header(of: payment.id, in: transaction.sql)?.timezone
                let (row, products) = StatsContribution.sale(payment, zone: zone)
                try await stats.add(row, in: transaction)
                for product in products { try await stats.add(product, in: transaction) }
            }
        }
    }
}
