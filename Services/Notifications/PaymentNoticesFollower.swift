import Contracts
import Domain
import Events
import Runtime

/// The payments service's events: a completed payment and a refund, to the staff member who
/// took the payment and its customer, and into the store's activity, with shifts begun and
/// ended and cards linked to customers.
struct PaymentNoticesFollower: NotifyingFollower {
    static let producer = PaymentsAPI.service
    static let effects: [String: @Sendable (DomainEvent) throws -> Notifier.Effect] = [
        PaymentsAPI.Events.completed: { event in
            let payment = try event.payload.decode(as: PaymentFacts.self)
            let telling = Telling(
                "payment.completed.title", "payment.completed.\(payment.method.rawValue)", [payment.total.description])
            return Notifier.Effect.notify(
                payment.data, [(Audience(customer: payment.customerUserID, person: payment.staffID), telling)],
                activity: Activity(
                    "payment", in: payment.storeID, telling.titleKey, telling.bodyKey, telling.args,
                    amount: payment.amount, currency: payment.currency, at: event.occurredAt,
                    data: payment.activityData))
        },
        PaymentsAPI.Events.refunded: { event in
            let refunded = try event.payload.decode(as: PaymentRefundFacts.self)
            let refund = Money(minorUnits: refunded.refund.amount, currency: refunded.payment.currency)
            var data = refunded.payment.data
            data["refund_id"] = refunded.refund.id
            let telling = Telling(
                "payment.refunded.title", "payment.refunded.body", [refund.description, refunded.refund.reason])
            var logged = refunded.payment.activityData
            logged["refund_id"] = refunded.refund.id
            // Who gave it back: the refund's maker (a cancel's canceller), not the payment's taker.
            logged["user_id"] = refunded.refund.staffID ?? logged["user_id"]
            return Notifier.Effect.notify(
                data,
                [(Audience(customer: refunded.payment.customerUserID, person: refunded.payment.staffID), telling)],
                activity: Activity(
                    "refund", in: refunded.payment.storeID, telling.titleKey, telling.bodyKey, telling.args,
                    amount: refunded.refund.amount, currency: refunded.payment.currency, at: event.occurredAt,
                    data: logged))
        },
        PaymentsAPI.Events.clockedIn: { event in try shift(event, "clock_in") },
        PaymentsAPI.Events.clockedOut: { event in try shift(event, "clock_out") },
        PaymentsAPI.Events.cardLinked: { event in
            let linked = try event.payload.decode(as: CardLinked.self)
            return Notifier.Effect.log(
                Activity(
                    "card_linked", in: linked.card.storeID, "activity.card_linked.title", "activity.card_linked.body",
                    [linked.customer.label, linked.card.uidDisplay], at: event.occurredAt,
                    data: ["card_id": linked.card.id.description, "customer_id": linked.customer.id.description]))
        },
    ]

    /// A shift begun or ended, in its store's activity, by the staff member's name.
    private static func shift(_ event: DomainEvent, _ type: String) throws -> Notifier.Effect {
        let shift = try event.payload.decode(as: Shift.self)
        return Notifier.Effect.log(
            Activity(
                type, in: shift.storeID, "activity.\(type).title",
                shift.staffName == nil ? "activity.someone" : "activity.name",
                [shift.staffName ?? ""], at: event.occurredAt,
                data: ["user_id": shift.userID.description, "shift_id": shift.id.description]))
    }

    let notifier: Notifier

    /// What the notifications take from a payment in an event's payload.
    struct PaymentFacts: Decodable, Sendable {
        var id: PaymentID
        var storeID: StoreID
        var orderID: OrderID?
        /// The customer's account the payment is made out to, and the store's record of them.
        var customerUserID: UserID?
        var customerID: CustomerID?
        var cardID: CardID?
        var staffID: UserID
        var amount: Int64
        var currency: CurrencyCode
        var method: PaymentMethod

        enum CodingKeys: String, CodingKey {
            case id, amount, currency, method
            case storeID = "store_id"
            case orderID = "order_id"
            case cardID = "card_id"
            case staffID = "staff_id"
        }

        /// The customer's record and account as a `Payment` reads them (`Payment.customer(from:)`).
        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            id = try container.decode(PaymentID.self, forKey: .id)
            storeID = try container.decode(StoreID.self, forKey: .storeID)
            orderID = try container.decodeIfPresent(OrderID.self, forKey: .orderID)
            (customerID, customerUserID) = try Payment.customer(from: decoder)
            cardID = try container.decodeIfPresent(CardID.self, forKey: .cardID)
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

        /// The ids its entry in the store's activity is about.
        var activityData: [String: String] {
            var data = ["payment_id": id.description, "user_id": staffID.description]
            data["order_id"] = orderID?.description
            data["customer_id"] = customerID?.description
            data["card_id"] = cardID?.description
            return data
        }
    }

    /// What the notifications take from a `payment.refunded` payload.
    struct PaymentRefundFacts: Decodable, Sendable {
        struct RefundFacts: Decodable, Sendable {
            var id: String
            var amount: Int64
            var reason: String
            var staffID: String?

            enum CodingKeys: String, CodingKey {
                case id, amount, reason
                case staffID = "staff_id"
            }
        }

        var payment: PaymentFacts
        var refund: RefundFacts
    }
}
