import Contracts
import Domain
import Foundation
import Storage

/// The one place an order is written, in the caller's transaction: opened (numbered, stored, its
/// first history entry and `order.created`) and changed (the next version written over the one
/// read, the pool mark, a history entry and its event). The handlers, the payments follower and
/// the unpaid sweep all write through it.
struct OrderBook: Sendable {
    let orders: OrdersRepository

    /// Who made a change: a user in their role, or the server itself (both nil).
    struct Actor: Sendable {
        var id: UserID?
        var role: Role?

        static let server = Actor()

        static func user(_ principal: Principal) -> Actor { Actor(id: principal.userID, role: principal.role) }
    }

    /// What a change did, for the history and the event.
    struct Change: Sendable {
        var name: String
        var event: String
        var from: OrderStatus?
        var to: OrderStatus?
        var details: [String: JSONValue]?
        /// The courier who released the order, on a release.
        var releasedBy: UserID?
    }

    /// Numbers `order` in its store, stamps it created `now` and stores it in the status it
    /// was made with, with its first history entry (carrying `details`) and `order.created`.
    func open(
        _ order: inout Order, by actor: Actor, at now: Date = .currentMillisecond, details: [String: JSONValue]? = nil,
        in transaction: Transaction
    ) async throws {
        order.number = try await transaction.nextSequence("orders.number.\(order.storeID)")
        (order.createdAt, order.updatedAt) = (now, now)
        let document = try await orders.insert(order, in: transaction)
        try await orders.appendHistory(
            OrderHistoryEntry(
                seq: 1, orderID: order.id, at: now, actorID: actor.id, actorRole: actor.role, change: "created",
                to: order.status, details: details),
            of: order.storeID, in: transaction)
        transaction.publish(OrdersEvents.created(order, document: document))
    }

    /// Writes `order`, changed by `change` from `read` (the version read under this transaction),
    /// as its next version: changed now, marked as having left the couriers' pool if it did,
    /// with a history entry and the change's event. A release by the courier themselves counts
    /// against their releases. False, writing nothing, when another change came first.
    func record(
        _ order: inout Order, changedFrom read: Order, _ change: Change, by actor: Actor, in transaction: Transaction
    ) async throws -> Bool {
        let now = Date.currentMillisecond
        order.version = read.version + 1
        order.updatedAt = now
        guard
            try await orders.update(
                order, previousVersion: read.version, leftPool: read.isInPool && !order.isInPool,
                releasedBy: change.releasedBy, in: transaction)
        else { return false }
        if let courier = change.releasedBy, courier == actor.id, actor.role == .courier {
            try await orders.recordRelease(by: courier, at: now, in: transaction)
        }
        let entry = OrderHistoryEntry(
            seq: order.version, orderID: order.id, at: now, actorID: actor.id, actorRole: actor.role,
            change: change.name, from: change.from, to: change.to, details: change.details)
        try await orders.appendHistory(entry, of: order.storeID, in: transaction)
        transaction.publish(try OrdersEvents.changed(change.event, OrderChange(order: order, change: entry)))
        return true
    }

    /// Moves `order` to `status` by `action` as the server's own change, recorded and published
    /// as the store's own action would be. False when the order changed meanwhile.
    func serverChange(
        _ order: inout Order, _ action: OrderAction, to status: OrderStatus, _ details: [String: JSONValue],
        in transaction: Transaction
    ) async throws -> Bool {
        let read = order
        order.status = status
        return try await record(
            &order, changedFrom: read,
            Change(
                name: action.rawValue, event: OrdersAPI.Events.statusChanged, from: read.status, to: status,
                details: details),
            by: .server, in: transaction)
    }

    /// Accepts `order`, pending, for its store, which accepts by itself. False when the order
    /// changed meanwhile.
    func acceptForStore(_ order: inout Order, in transaction: Transaction) async throws -> Bool {
        guard order.status == .pending else { return true }
        return try await serverChange(&order, .accept, to: .accepted, ["automatic": .bool(true)], in: transaction)
    }

    /// Cancels the card orders whose time to be paid ran out, at most `limit`; returns how many.
    /// Each is cancelled in its own transaction, as a change of its version, so a payment that
    /// completes meanwhile wins and a replica beside this one cancels nothing twice.
    func cancelUnpaid(limit: Int) async throws -> Int {
        let orders = self.orders
        var cancelled = 0
        for id in try await orders.unpaid(at: Date.currentMillisecond, limit: limit) {
            let done = try await orders.database.transaction { transaction in
                // Paid or ended meanwhile, it is left as it is (its `pay_by` is cleared then).
                guard var order = try await orders.find(id, in: transaction.sql), order.status == .pending,
                    order.awaitsPayment
                else { return false }
                order.cancellationReason = "not paid within \(Int(Order.cardPaymentWindow / 60)) minutes"
                order.payBy = nil
                return try await serverChange(
                    &order, .cancel, to: .cancelled, ["reason": .string(order.cancellationReason ?? "")],
                    in: transaction)
            }
            if done { cancelled += 1 }
        }
        return cancelled
    }
}
