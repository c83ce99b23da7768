import Contracts
import Domain
import Events
import Foundation
import Logging
import Runtime
import Storage

/// The catalog's steps of the order-line saga: the stock held for orders' lines follows the
/// orders, as the orders service's events tell them.
///
/// The orders service holds stock for a line before it stores it (a reservation carrying the
/// order's id, expiring after `ORDERLY_ORDER_LINE_HOLD_SECONDS`) and lists the reservation on
/// the stored line.
/// Here each event's order is the state to reach: listed reservations are kept until the order
/// ends (their expiry removed), one that lapsed before that is held again, a line's hold
/// shrinks with the line, reservations of removed lines are released, all of them when the
/// order is cancelled, and they are committed (`sale` entries) when it is delivered or
/// collected; the reservations of a removed line are released even if never seen listed. One
/// the orders service made but never stored, because its write failed or the request was a
/// replay, it gives back at once; if it stopped between the two steps, the reservation expires.
/// Each order is brought in line once per version, in one transaction with its inbox record, so
/// a crash anywhere repeats or skips nothing.
struct OrderHoldsFollower: EventFollower {
    static let producer = OrdersAPI.service

    /// The name its applied events are recorded under (the inbox).
    static let consumer = "catalog.order-holds"
    /// The order events that can change what an order holds: a customer's new order (whose
    /// lines list their reservations), its lines changed, or its status (cancelled, delivered,
    /// collected). A claim or a release changes neither.
    static let types = [OrdersAPI.Events.created, OrdersAPI.Events.updated, OrdersAPI.Events.statusChanged]
    /// Holds last minutes before they are seen, so a fifth of a second is nothing to them; read
    /// back to back, the stream would wake it for each store's new order to pass over.
    static let readPause = Duration.milliseconds(200)

    /// How reservations end and are held again, over the catalog's database.
    let book: StockBook
    let logger: Logger

    /// Brings the stock held for the event's order in line with it, once per event. An order
    /// that lists no reservation and has none is passed over without a write.
    func apply(_ event: DomainEvent) async throws {
        if event.type == OrdersAPI.Events.created {
            // A store's new order has no lines, so the hot path of its creation costs a scan of
            // the payload here; a customer's lists the reservations of its tracked products.
            guard event.payload.mentions("\"reservation_ids\"") else { return }
            let order = try event.payload.decode(as: OrderStock.self)
            try await book.database.applyOnce(event, consumer: Self.consumer) { transaction in
                try await reconcile(order, in: transaction)
            }
            return
        }
        let change = try event.payload.decode(as: OrderStockChange.self)
        let order = change.order
        let listed = order.items.contains { !($0.reservationIDs ?? []).isEmpty }
        if !listed,
            try await !book.database.read({ try await book.reservations.hasReservations(of: order.id, in: $0) })
        {
            return
        }
        try await book.database.applyOnce(event, consumer: Self.consumer) { transaction in
            try await reconcile(order, removed: change.change.details?.reservationIDs ?? [], in: transaction)
        }
    }

    /// Brings the stock held for `order` in line with it, unless a later version of it was
    /// already, and gives back `removed` (the reservations of a line the change removed, which
    /// may not have been seen listed yet). Takes the order's lock, then its reservations' in id
    /// order, then every product they hold in id order, all before writing anything, so that no
    /// other writer of those products waits on it in a circle.
    func reconcile(_ order: OrderStock, removed: [ReservationID] = [], in transaction: Transaction) async throws {
        try await transaction.lock(.holds(ofOrder: order.id))
        guard order.version > (try await book.reservations.holdsVersion(of: .order(order.id), in: transaction.sql))
        else { return }
        let known = try await book.reservations.reservations(of: order.id, in: transaction.sql)
        let ids = Set(known.map(\.id))
        try await transaction.lock(ids.map(Lock.reservation))
        try await transaction.lock(known.flatMap { $0.lines.map { Lock.product($0.productID) } })
        // Read again under the locks; one made since (its line not stored yet) is left alone.
        var reservations = Dictionary(
            uniqueKeysWithValues: try await book.reservations.reservations(of: order.id, in: transaction.sql)
                .filter { ids.contains($0.id) }.map { ($0.id, $0) })
        let removed = Set(removed)
        let lines = order.items.filter { !($0.reservationIDs ?? []).isEmpty }
        let listed = Set(lines.flatMap { $0.reservationIDs ?? [] })
        let ending: ReservationStatus? =
            switch order.status {
            case .cancelled: .released
            case .delivered, .collected, .despatched: .committed
            default: nil
            }
        if ending != .released {
            for line in lines { try await bringInLine(line, of: order, &reservations, in: transaction) }
        }
        for var reservation in reservations.values where reservation.status == .held {
            let isListed = listed.contains(reservation.id)
            let outcome: ReservationStatus? =
                switch ending {
                case .released?: .released
                case .committed?: isListed ? .committed : .released
                default:
                    !isListed && (reservation.expiresAt == nil || removed.contains(reservation.id)) ? .released : nil
                }
            guard let outcome else { continue }
            try await book.end(&reservation, as: outcome, by: nil, in: transaction)
        }
        try await book.reservations.setHoldsVersion(order.version, of: .order(order.id), in: transaction)
    }

    /// Keeps `line`'s reservations held until the order ends, holds again one that lapsed
    /// (when the stock is there), and gives back what the line no longer needs.
    private func bringInLine(
        _ line: OrderStock.Line, of order: OrderStock, _ reservations: inout [ReservationID: Reservation],
        in transaction: Transaction
    ) async throws {
        var held: Int64 = 0
        var kept: [ReservationID] = []
        for id in line.reservationIDs ?? [] {
            guard var reservation = reservations[id] else {
                logger.error(
                    "an order line lists a reservation the catalog does not have",
                    metadata: ["order.id": "\(order.id)", "reservation.id": "\(id)"])
                continue
            }
            // Sold already: a change after delivery (its cash payment, say) has nothing to hold.
            if reservation.status == .committed { continue }
            if reservation.status != .held {
                guard try await book.holdAgain(&reservation, in: transaction) else {
                    logger.error(
                        "stock for an order line lapsed and is no longer available",
                        metadata: ["order.id": "\(order.id)", "reservation.id": "\(id)"])
                    continue
                }
            }
            if reservation.expiresAt != nil {
                reservation.expiresAt = nil
                reservation.updatedAt = Date.currentMillisecond
                try await book.reservations.update(reservation, in: transaction)
            }
            reservations[id] = reservation
            held += reservation.lines.reduce(0) { $0 + $1.quantity }
            kept.append(id)
        }
        // The newest reservations give back first what the line holds beyond its quantity.
        var excess = held - Int64(line.quantity)
        for id in kept.reversed() where excess > 0 {
            guard var reservation = reservations[id], let units = reservation.lines.first?.quantity else { continue }
            let giving = min(units, excess)
            try await shrink(&reservation, by: giving, in: transaction)
            reservations[id] = reservation
            excess -= giving
        }
    }

    /// Gives back `units` of a one-line reservation; all of them release it.
    private func shrink(_ reservation: inout Reservation, by units: Int64, in transaction: Transaction) async throws {
        guard let line = reservation.lines.first else { return }
        if units >= line.quantity {
            try await book.end(&reservation, as: .released, by: nil, in: transaction)
            return
        }
        let locked = try await book.products.lockedProducts(of: reservation.lines, in: transaction)
        guard var product = locked[line.productID] else { return }
        product.reserved -= units
        try await book.save(&product, in: transaction)
        reservation.lines[0].quantity -= units
        reservation.updatedAt = Date.currentMillisecond
        try await book.reservations.update(reservation, in: transaction)
    }
}

/// What the stock held for an order follows, read from an order event's payload (an
/// `OrderChange`); the order's other fields are not decoded.
struct OrderStock: Decodable, Sendable {
    var id: OrderID
    var version: Int64
    var status: OrderStatus
    var items: [Line]

    struct Line: Decodable, Sendable {
        var quantity: Int
        var reservationIDs: [ReservationID]?

        enum CodingKeys: String, CodingKey {
            case quantity
            case reservationIDs = "reservation_ids"
        }
    }
}

/// An order event's payload: the order, and of the change the reservations of a line it
/// removed.
struct OrderStockChange: Decodable, Sendable {
    var order: OrderStock
    var change: Change

    struct Change: Decodable, Sendable {
        var details: Details?
    }

    struct Details: Decodable, Sendable {
        var reservationIDs: [ReservationID]?

        enum CodingKeys: String, CodingKey { case reservationIDs = "reservation_ids" }
    }
}
