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
                        Audience(customer: payment.customerUserID, person: payment.staffID),
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
                        Audience(customer: refunded.payment.customerUserID, person: refunded.payment.staffID),
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
        /// The customer's account the payment is made out to.
        var customerUserID: UserID?
        var staffID: UserID
        var amount: Int64
        var currency: CurrencyCode
        var method: PaymentMethod

        enum CodingKeys: String, CodingKey {
            case id, amount, currency, method
            case storeID = "store_id"
            case orderID = "order_id"
            case customerID = "customer_id"
            case customerUserID = "customer_user_id"
            case staffID = "staff_id"
        }

        /// As `Payment.init(from:)` reads it: a payment written before the stores' customer
        /// records has no `customer_user_id`, and its `customer_id` named the account.
        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            id = try container.decode(PaymentID.self, forKey: .id)
            storeID = try container.decode(StoreID.self, forKey: .storeID)
            orderID = try container.decodeIfPresent(OrderID.self, forKey: .orderID)
            customerUserID = try container.decodeIfPresent(
                UserID.self, forKey: container.contains(.customerUserID) ? .customerUserID : .customerID)
            staffID = try container.decode(UserID.self, forKey: .staffID)
            amount = try container.decode(Int64.self, forKey: .amount)
            currency = try container.decode(CurrencyCode.self, forKey: .currency)
            method = try container.decode(PaymentMethod.self, forKey: .method)
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
