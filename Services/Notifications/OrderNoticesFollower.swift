import Contracts
import Domain
import Events
import Runtime

/// The orders service's events: a new order to the store's users and, for a delivery born in the
/// pool, to the couriers on duty (a customer's card order only once it is paid, as
/// `order.updated` tells); a claim to the store's users; each status change to the store's users, the
/// courier carrying the order and the customer who placed it; and an order that enters the pool
/// (accepted or ready while unclaimed, or released) to the couriers on duty, without the
/// recipient's apartment, as their view of the order has it.
struct OrderNoticesFollower: NotifyingFollower {
    static let producer = OrdersAPI.service
    static let effects: [String: @Sendable (DomainEvent) throws -> Notifier.Effect] = [
        OrdersAPI.Events.created: { event in
            let order = try event.payload.decode(as: OrderFacts.self)
            return order.awaitsPayment ? .notify(order.data, []) : arrived(order)
        },
        OrdersAPI.Events.updated: { event in
            // Only a card order's payment is told of; other changes pass undecoded.
            guard event.payload.mentions("\"payment_completed\"") else { return .notify([:], []) }
            let change = try event.payload.decode(as: OrderFactsChange.self)
            let order = change.order
            guard change.change?.change == "payment_completed", order.paymentMethod == .card, !order.awaitsPayment,
                order.status == .pending
            else { return .notify(order.data, []) }
            return arrived(order)
        },
        OrdersAPI.Events.claimed: { event in
            let order = try event.payload.decode(as: OrderFactsChange.self).order
            return Notifier.Effect.notify(
                order.data,
                [(Audience(store: order.storeID), Telling("order.claimed.title", "order.claimed.body", [order.label]))])
        },
        OrdersAPI.Events.statusChanged: { event in
            let order = try event.payload.decode(as: OrderFactsChange.self).order
            let status = order.status.rawValue
            let cancelled = order.status == .cancelled && order.cancellationReason != nil
            var tellings = [
                (
                    // A card order nobody paid for never reached its store.
                    Audience(
                        store: order.awaitsPayment ? nil : order.storeID, customer: order.createdBy,
                        person: order.courierID),
                    Telling(
                        "order.status.\(status)", cancelled ? "order.status.cancelled.body" : "order.status.body",
                        [order.label, order.cancellationReason ?? ""])
                )
            ]
            if [.accepted, .ready].contains(order.status), order.isInPool { tellings.append(available(order)) }
            return Notifier.Effect.notify(order.data, tellings)
        },
        OrdersAPI.Events.released: { event in
            let order = try event.payload.decode(as: OrderFactsChange.self).order
            var tellings = [
                (Audience(store: order.storeID), Telling("order.released.title", "order.released.body", [order.label]))
            ]
            if order.isInPool { tellings.append(available(order)) }
            return Notifier.Effect.notify(order.data, tellings)
        },
    ]
    /// The type of the notification that tells couriers of an order they can claim.
    static let available = "order.available"

    let notifier: Notifier

    /// What a new order's arrival tells: the store's users and, for a delivery already in the
    /// couriers' pool (a store that dispatches on creation), the couriers on duty.
    private static func arrived(_ order: OrderFacts) -> Notifier.Effect {
        var tellings = [
            (
                Audience(store: order.storeID),
                order.fulfillment == .delivery
                    ? Telling("order.created.title", "order.created.delivery", order.arguments(withApartment: true))
                    : Telling("order.created.title", "order.created.pickup", order.arguments(withApartment: true))
            )
        ]
        // Couriers hear of it only if they can open it now; the rest reach them on entering the pool.
        if order.isInPool {
            tellings.append(
                (
                    .couriersOnDuty,
                    Telling(
                        "order.new_delivery.title", "order.new_delivery.body", order.arguments(withApartment: false)
                    )
                ))
        }
        return Notifier.Effect.notify(order.data, tellings)
    }

    /// What the couriers on duty are told of an order they can claim now.
    private static func available(_ order: OrderFacts) -> (Audience, Telling) {
        (
            .couriersOnDuty,
            Telling(
                "order.available.title", "order.available.body", order.arguments(withApartment: false),
                type: available)
        )
    }

    /// What the notifications take from an order in an event's payload; the order's other fields
    /// are not decoded.
    struct OrderFacts: Decodable, Sendable, Hashable {
        var id: OrderID
        var number: Int64
        var storeID: StoreID
        var fulfillment: Fulfillment
        var workflow: OrderWorkflow?
        var status: OrderStatus
        var street: String?
        var buildingNo: String?
        var floor: String?
        var apartment: String?
        var city: String?
        var boxesCount: Int
        var courierID: UserID?
        var createdBy: UserID
        var cancellationReason: String?
        var paymentMethod: OrderPaymentMethod?
        var paymentStatus: OrderPaymentStatus?

        enum CodingKeys: String, CodingKey {
            case id, number, fulfillment, workflow, status, street, floor, apartment, city
            case paymentMethod = "payment_method"
            case paymentStatus = "payment_status"
            case storeID = "store_id"
            case buildingNo = "building_no"
            case boxesCount = "boxes_count"
            case courierID = "courier_id"
            case createdBy = "created_by"
            case cancellationReason = "cancellation_reason"
        }

        /// The recipient's address on one line, with or without the apartment.
        func address(withApartment: Bool) -> String? {
            Order.addressLine(
                fulfillment: fulfillment, street: street, buildingNo: buildingNo, floor: floor,
                apartment: withApartment ? apartment : nil, city: city)
        }

        /// The order's number as text, the first argument of its texts.
        var label: String { "\(number)" }

        /// The arguments of the texts of a new or claimable order: its number, the address (with or
        /// without the apartment; empty for pickup), and the boxes.
        func arguments(withApartment: Bool) -> [String] {
            [label, address(withApartment: withApartment) ?? "", "\(boxesCount)"]
        }

        /// The ids a notification of the order opens.
        var data: [String: String] { ["order_id": id.description, "store_id": storeID.description] }

        /// Whether it is a card order not paid yet, which its store does not hear of.
        var awaitsPayment: Bool { Order.awaitsPayment(paymentMethod, paymentStatus) }

        /// Whether couriers can claim it now (`OrderPool`).
        var isInPool: Bool {
            OrderPool.contains(workflow: workflow, fulfillment: fulfillment, courierID: courierID, status: status)
        }
    }

    /// The order of an `OrderChange` payload, and what the change was.
    struct OrderFactsChange: Decodable, Sendable {
        var order: OrderFacts
        var change: Change?

        struct Change: Decodable, Sendable {
            var change: String
        }
    }
}
