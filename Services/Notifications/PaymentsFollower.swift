import Contracts
import Domain
import Events
import Runtime

/// The payments service's events: a completed payment and a refund, to the staff member who
/// took the payment and its customer.
struct PaymentsFollower: NotifyingFollower {
    static let producer = PaymentsAPI.service
    static let effects: [String: @Sendable (DomainEvent) throws -> Notifier.Effect] = [
        PaymentsAPI.Events.completed: { event in
            let payment = try event.payload.decode(as: PaymentFacts.self)
            return Notifier.Effect.notify(
                payment.data,
                [
                    (
                        Audience(customer: payment.customerID, person: payment.staffID),
                        Telling(
                            "payment.completed.title", "payment.completed.\(payment.method.rawValue)",
                            [payment.total.description])
                    )
                ])
        },
        PaymentsAPI.Events.refunded: { event in
            let refunded = try event.payload.decode(as: PaymentRefundFacts.self)
            let refund = Money(minorUnits: refunded.refund.amount, currency: refunded.payment.currency)
            var data = refunded.payment.data
            data["refund_id"] = refunded.refund.id
            return Notifier.Effect.notify(
                data,
                [
                    (
                        Audience(customer: refunded.payment.customerID, person: refunded.payment.staffID),
                        Telling(
                            "payment.refunded.title", "payment.refunded.body",
                            [refund.description, refunded.refund.reason])
                    )
                ])
        },
    ]

    let notifier: Notifier

    /// What the notifications take from a payment in an event's payload.
    struct PaymentFacts: Decodable, Sendable {
        var id: PaymentID
        var storeID: StoreID
        var orderID: OrderID?
        var customerID: UserID?
        var staffID: UserID
        var amount: Int64
        var currency: CurrencyCode
        var method: PaymentMethod

        enum CodingKeys: String, CodingKey {
            case id, amount, currency, method
            case storeID = "store_id"
            case orderID = "order_id"
            case customerID = "customer_id"
            case staffID = "staff_id"
        }

        /// The amount with its currency: `35.00 ILS`.
        var total: Money { Money(minorUnits: amount, currency: currency) }

        /// The ids a notification of the payment opens.
        var data: [String: String] {
            var data = ["payment_id": id.description, "store_id": storeID.description]
            data["order_id"] = orderID?.description
            return data
        }
    }

    /// What the notifications take from a `payment.refunded` payload.
    struct PaymentRefundFacts: Decodable, Sendable {
        struct RefundFacts: Decodable, Sendable {
            var id: String
            var amount: Int64
            var reason: String
        }

        var payment: PaymentFacts
        var refund: RefundFacts
    }
}
