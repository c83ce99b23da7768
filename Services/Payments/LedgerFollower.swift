import Contracts
import Domain
import Events
import Runtime
import Storage

/// Keeps a store's statistics (`StatsRepository`) and the ledger (`LedgerRepository`) from the
/// payments service's own events: `payment.completed` and `payment.refunded` each add to their
/// day's rows and post their entry, once, at the commission the store had when the payment was
/// made. A tip completed after its order was delivered goes to the courier who delivered it
/// (the delivery's entry, posted by `OrderMoneyFollower` under the order's lock as this is, counted
/// the tips completed before it).
struct LedgerFollower: EventFollower {
    static let producer = PaymentsAPI.service
    static let types = [PaymentsAPI.Events.completed, PaymentsAPI.Events.refunded]
    /// The name its applied events are recorded under (the inbox).
    static let consumer = "payments.stats"

    let database: Database
    let payments: PaymentsRepository
    let stats: StatsRepository
    let ledger = LedgerRepository()

    func apply(_ event: DomainEvent) async throws {
        let (payments, stats, ledger) = (self.payments, self.stats, self.ledger)
        if event.type == PaymentsAPI.Events.refunded {
            let refunded = try event.payload.decode(as: PaymentRefunded.self)
            try await database.applyOnce(event, consumer: Self.consumer) { transaction in
                let header = try await payments.header(of: refunded.payment.id, in: transaction.sql)
                let (row, _) = StatsContribution.refund(refunded.refund, of: refunded.payment, zone: header?.timezone)
                try await stats.add(row, in: transaction)
                try await ledger.post(
                    Ledger.refund(
                        refunded.refund, of: refunded.payment, commissionBP: header?.commissionBP ?? 0,
                        at: refunded.refund.createdAt),
                    in: transaction)
            }
        } else {
            let payment = try event.payload.decode(as: Payment.self)
            try await database.applyOnce(event, consumer: Self.consumer) { transaction in
                let tipped = payment.tip > 0 ? payment.orderID : nil
                if let order = tipped { try await transaction.lock(.payments(of: order)) }
                let header = try await payments.header(of: payment.id, in: transaction.sql)
                let (row, products) = StatsContribution.sale(payment, zone: header?.timezone)
                try await stats.add(row, in: transaction)
                for product in products { try await stats.add(product, in: transaction) }
                let at = payment.completedAt ?? event.occurredAt
                var entries = [Ledger.payment(payment, commissionBP: header?.commissionBP ?? 0, at: at)]
                // The payment as it is now: a refund booked before this event came gave back its tip first.
                if let order = tipped, let delivery = try await ledger.entry("delivery:\(order)", in: transaction.sql),
                    let current = try await payments.payment(payment.id, in: transaction.sql),
                    let tip = Ledger.tip(of: current, after: delivery, at: at)
                {
                    entries.append(tip)
                }
                try await ledger.post(entries, in: transaction)
            }
        }
    }
}
