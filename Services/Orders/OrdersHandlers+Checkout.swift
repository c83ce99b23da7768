import Contracts
import Domain
import Foundation
import Storage
import Wire

/// A customer's checkout (`POST /v1/orders` by a customer), and what the server does by itself
/// to customers' orders: accept them for a store that accepts by itself, and cancel a card
/// order nobody paid for in time.
extension OrdersHandlers {
    /// Prices the cart from the catalog, holds the stock of its tracked products (one
    /// reservation per line, as a store's catalog lines), and stores the order `pending` with its
    /// customer as recipient; a cash-on-delivery order for a store that accepts by itself is
    /// accepted at once. A repeat is answered from its record and holds nothing again.
    func checkout(_ request: CheckoutRequest, principal: Principal, idempotencyKey: String) async throws -> Order {
        let policy = AccessPolicy(principal)
        try policy.checkCheckout()
        let valid = try request.draft.validated(for: request.customer)
        let scope = "orders.create:\(valid.storeID)"
        if try await idempotency.isRepeat(key: idempotencyKey, caller: principal.userID, scope: scope, request: request)
        {
            return try await idempotency.write(
                key: idempotencyKey, caller: principal.userID, scope: scope, request: request,
                replay: replay(for: policy)
            ) { _ in throw OrderlyError(.unavailable, "the request's record lapsed meanwhile; send it again") }
        }
        let orders = self.orders
        if valid.paymentMethod == .card {
            // Before any stock is held; again under the customer's lock as the order is stored.
            try Order.checkUnpaid(
                try await database.read { try await orders.unpaidCount(of: principal.userID, in: $0) })
        }
        let store = try await stores.store(valid.storeID, for: principal)
        guard store.acceptingOrders, store.isOpen(at: Date()) else {
            throw OrderlyError(
                .failedPrecondition,
                store.acceptingOrders ? "\(store.name) is closed now" : "\(store.name) is not taking orders now",
                reason: "store_closed")
        }
        var (order, tracked) = try await price(valid, in: store, principal: principal)
        let holds = try await hold(order, tracked: tracked, principal: principal)
        for (index, hold) in holds { order.items[index].reservationIDs = [hold.id] }
        let answer: Order
        do {
            answer = try await idempotency.write(
                key: idempotencyKey, caller: principal.userID, scope: scope, request: request,
                replay: replay(for: policy)
            ) { [order] transaction in
                var order = order
                if order.paymentMethod == .card {
                    try await transaction.lock("orders.customer.unpaid:\(principal.userID)")
                    try Order.checkUnpaid(try await orders.unpaidCount(of: principal.userID, in: transaction.sql))
                }
                if valid.order.id != nil, try await orders.find(order.id, in: transaction.sql) != nil {
                    throw OrderlyError(
                        .conflict, "an order with id \(order.id) already exists", reason: "already_exists")
                }
                let now = Date.currentMillisecond
                order.number = try await transaction.nextSequence("orders.number.\(store.id)")
                (order.createdAt, order.updatedAt) = (now, now)
                if order.paymentMethod == .card { order.payBy = now.addingTimeInterval(Order.cardPaymentWindow) }
                let document = try await orders.insert(order, in: transaction)
                try await orders.appendHistory(
                    OrderHistoryEntry(
                        seq: 1, orderID: order.id, at: now, actorID: principal.userID, actorRole: principal.role,
                        change: "created", to: .pending),
                    of: order.storeID, in: transaction)
                transaction.publish(OrdersEvents.created(order, document: document))
                if order.autoAccept == true, !order.awaitsPayment {
                    guard try await Self.acceptForStore(&order, orders, in: transaction) else {
                        throw OrderlyError(.internal, "a new order changed within its own transaction")
                    }
                }
                return policy.present(order)
            }
        } catch {
            for hold in holds.values { await giveBack(hold, principal) }
            throw error
        }
        // A request replayed meanwhile answers as the first time, whose lines list other holds.
        let listed = Set(answer.items.flatMap { $0.reservationIDs ?? [] })
        for hold in holds.values where !listed.contains(hold.id) { await giveBack(hold, principal) }
        return answer
    }

    /// The order a valid checkout makes in `store`, priced and checked against the minimum, not
    /// yet numbered: each line by its product and options (every bad line named at once), the
    /// delivery fee for one box, and the customer's fields; with the products that track stock.
    private func price(_ valid: ValidCheckout, in store: Store, principal: Principal) async throws
        -> (Order, tracked: Set<ProductID>)
    {
        let products = try await catalog.call(
            CatalogAPI.checkoutProducts, CheckoutProductsRequest(storeID: store.id, ids: valid.lines.map(\.productID)),
            options: WireCallOptions(principal: principal))
        let byID = Dictionary(products.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        var problems = FieldProblems()
        var items: [OrderItem] = []
        for (index, line) in valid.lines.enumerated() {
            do {
                items.append(
                    try line.item(
                        of: byID[line.productID], in: store.id, currency: store.currency, field: "items[\(index)]"))
            } catch {
                guard error.code == .invalidArgument else { throw error }
                for (field, reason) in error.details ?? [:] {
                    if case .string(let text) = reason { problems.add(field, text) }
                }
            }
        }
        try problems.check()
        var order = Order(
            id: valid.order.id ?? OrderID(), number: 0, storeID: store.id, status: .pending, version: 1,
            draft: valid.order, pickupAddress: store.address, quote: try Self.quote(valid.order, in: store),
            currency: store.currency, createdBy: principal.userID, createdAt: Date.currentMillisecond)
        order.items = items
        try order.recomputeTotals()
        guard order.itemsGross >= store.minimumOrder else {
            throw OrderlyError(
                .failedPrecondition, "\(store.name) takes orders of at least \(store.minimumOrder)",
                reason: "below_minimum", details: ["minimum_order": .int(store.minimumOrder)])
        }
        guard order.total <= Payment.maximumAmount - valid.tip else {
            throw OrderlyError(
                .failedPrecondition, "an order is at most \(Payment.maximumAmount) minor units with its tip",
                reason: "total_too_large")
        }
        order.customerID = principal.userID
        order.paymentMethod = valid.paymentMethod
        order.tip = valid.tip
        order.customerNotes = valid.customerNotes
        order.storeName = store.name
        order.storePhone = store.phone
        order.autoAccept = store.autoAccept
        return (order, Set(products.filter(\.trackStock).map(\.id)))
    }

    /// Holds the units of each line of a stock-tracked product, a reservation per line (which
    /// the catalog keeps until the order ends), by line index; all or none: the products short
    /// of stock are named together in one `409 insufficient_stock`, without their counts.
    private func hold(_ order: Order, tracked: Set<ProductID>, principal: Principal) async throws
        -> [Int: Reservation]
    {
        let lines = order.items.enumerated().compactMap { index, item in
            item.productID.flatMap { tracked.contains($0) ? (index, $0, Int64(item.quantity)) : nil }
        }
        guard !lines.isEmpty else { return [:] }
        let catalog = self.catalog
        let options = WireCallOptions(principal: principal)
        var holds: [Int: Reservation] = [:]
        var shortages: [JSONValue] = []
        var failure: (any Error)?
        await withTaskGroup(of: (Int, Result<Reservation, any Error>).self) { group in
            for (index, product, quantity) in lines {
                group.addTask {
                    do {
                        let hold = try await catalog.call(
                            CatalogAPI.reserve,
                            NewReservation(
                                storeID: order.storeID, orderID: order.id,
                                lines: [Reservation.Line(productID: product, quantity: quantity)],
                                reference: order.id.description, expiresInSeconds: lineHoldSeconds),
                            options: options)
                        return (index, .success(hold))
                    } catch {
                        return (index, .failure(error))
                    }
                }
            }
            for await (index, result) in group {
                switch result {
                case .success(let hold): holds[index] = hold
                case .failure(let error as OrderlyError) where error.reason == "insufficient_stock":
                    // A customer learns which products are short, not how many the store has left.
                    if case .array(let products)? = error.details?["products"] {
                        shortages += products.compactMap { product in
                            guard case .object(let fields) = product, let id = fields["product_id"] else { return nil }
                            return .object(["product_id": id])
                        }
                    }
                case .failure(let error): failure = failure ?? error
                }
            }
        }
        if failure != nil || !shortages.isEmpty {
            for hold in holds.values { await giveBack(hold, principal) }
            if let failure { throw failure }
            throw OrderlyError(
                .conflict, "not enough stock for this order", reason: "insufficient_stock",
                details: ["products": .array(shortages)])
        }
        return holds
    }

    /// Accepts `order`, pending, for its store, which accepts by itself. False when the order
    /// changed meanwhile.
    static func acceptForStore(_ order: inout Order, _ orders: OrdersRepository, in transaction: Transaction)
        async throws -> Bool
    {
        guard order.status == .pending else { return true }
        return try await serverChange(
            &order, .accept, to: .accepted, ["automatic": .bool(true)], orders, in: transaction)
    }

    /// Moves `order` to `status` by `action` as the server's own change: the next version, a
    /// history entry without an actor, and `order.status_changed`, as the store's own action
    /// would be recorded and published. False when the order changed meanwhile.
    private static func serverChange(
        _ order: inout Order, _ action: OrderAction, to status: OrderStatus, _ details: [String: JSONValue],
        _ orders: OrdersRepository, in transaction: Transaction
    ) async throws -> Bool {
        let (previousVersion, from) = (order.version, order.status)
        order.status = status
        order.version += 1
        order.updatedAt = Date.currentMillisecond
        guard
            try await orders.update(
                order, previousVersion: previousVersion, leftPool: false, releasedBy: nil, in: transaction)
        else { return false }
        let entry = OrderHistoryEntry(
            seq: order.version, orderID: order.id, at: order.updatedAt, actorID: nil, actorRole: nil,
            change: action.rawValue, from: from, to: status, details: details)
        try await orders.appendHistory(entry, of: order.storeID, in: transaction)
        transaction.publish(
            try OrdersEvents.changed(OrdersAPI.Events.statusChanged, OrderChange(order: order, change: entry)))
        return true
    }

    /// Cancels the card orders whose time to be paid ran out, at most `limit`; returns how many.
    /// Each is cancelled in its own transaction, as a change of its version, so a payment that
    /// completes meanwhile wins and a replica beside this one cancels nothing twice.
    func cancelUnpaid(limit: Int) async throws -> Int {
        let orders = self.orders
        var cancelled = 0
        for id in try await orders.unpaid(at: Date.currentMillisecond, limit: limit) {
            let done = try await database.transaction { transaction in
                // Paid or ended meanwhile, it is left as it is (its `pay_by` is cleared then).
                guard var order = try await orders.find(id, in: transaction.sql), order.status == .pending,
                    order.awaitsPayment
                else { return false }
                order.cancellationReason = "not paid within \(Int(Order.cardPaymentWindow / 60)) minutes"
                order.payBy = nil
                return try await Self.serverChange(
                    &order, .cancel, to: .cancelled, ["reason": .string(order.cancellationReason ?? "")], orders,
                    in: transaction)
            }
            if done { cancelled += 1 }
        }
        return cancelled
    }
}
