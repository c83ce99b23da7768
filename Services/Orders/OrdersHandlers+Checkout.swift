import Contracts
import Domain
import Foundation
import Storage
import Wire

/// A customer's checkout (`POST /v1/orders` by a customer): the cart priced from the catalog,
/// its stock held, the order stored (and accepted at once for a store that accepts by itself).
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
        let (orders, book) = (self.orders, self.book)
        if valid.paymentMethod == .card {
            // Before any stock is held; again under the customer's lock as the order is stored.
            try Order.checkUnpaid(
                try await database.read { try await orders.unpaidCount(of: principal.userID, in: $0) })
        }
        let store = try await stores.store(valid.storeID, for: principal)
        guard store.acceptingOrders, store.isOpen(at: Date()) else {
            throw OrderlyError(
                .storeClosed,
                store.acceptingOrders ? "\(store.name) is closed now" : "\(store.name) is not taking orders now")
        }
        if valid.order.fulfillment == .delivery { try store.checkDelivery(to: valid.place) }
        var (order, tracked) = try await price(valid, in: store, principal: principal)
        let holds = try await hold(order, tracked: tracked, principal: principal)
        for (index, hold) in holds { order.items[index].reservationIDs = [hold.id] }
        let held = Array(holds.values)
        let answer: Order
        do {
            answer = try await idempotency.write(
                key: idempotencyKey, caller: principal.userID, scope: scope, request: request,
                replay: replay(for: policy)
            ) { [order] transaction in
                var order = order
                if order.paymentMethod == .card {
                    try await transaction.lock(.unpaidOrders(of: principal.userID))
                    try Order.checkUnpaid(try await orders.unpaidCount(of: principal.userID, in: transaction.sql))
                }
                if valid.order.id != nil, try await orders.find(order.id, in: transaction.sql) != nil {
                    throw OrderlyError(
                        .alreadyExists, "an order with id \(order.id) already exists")
                }
                let now = Date.currentMillisecond
                if order.paymentMethod == .card { order.payBy = now.addingTimeInterval(Order.cardPaymentWindow) }
                try await book.open(&order, by: .user(principal), at: now, in: transaction)
                if order.autoAccept == true, !order.awaitsPayment {
                    guard try await book.acceptForStore(&order, in: transaction) else {
                        throw OrderlyError(.internal, "a new order changed within its own transaction")
                    }
                }
                return policy.present(order)
            }
        } catch {
            await stock.giveBack(held, for: principal)
            throw error
        }
        // A request replayed meanwhile answers as the first time, whose lines list other holds.
        let listed = Set(answer.items.flatMap { $0.reservationIDs ?? [] })
        await stock.giveBack(held.filter { !listed.contains($0.id) }, for: principal)
        return answer
    }

    /// The order a valid checkout makes in `store`, priced and checked against the minimum, not
    /// yet numbered: each line by its product and options (every bad line named at once), the
    /// delivery fee for one box, and the customer's fields; with the products that track stock.
    private func price(_ valid: ValidCheckout, in store: Store, principal: Principal) async throws
        -> (Order, tracked: Set<ProductID>)
    {
        let byID = try await stock.sellable(valid.lines.map(\.productID), in: store.id, for: principal)
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
        var quote = try Self.quote(valid.order, in: store)
        if valid.order.fulfillment == .delivery { quote.fee += store.distanceSurcharge(to: valid.place) }
        var order = Order(
            id: valid.order.id ?? OrderID(), number: 0, storeID: store.id, status: .pending, version: 1,
            draft: valid.order, pickupAddress: store.address, quote: quote,
            currency: store.currency, createdBy: principal.userID, createdAt: Date.currentMillisecond)
        order.items = items
        try order.recomputeTotals()
        guard order.itemsGross >= store.minimumOrder else {
            throw OrderlyError(
                .belowMinimum, "\(store.name) takes orders of at least \(store.minimumOrder)",
                details: ["minimum_order": .int(store.minimumOrder)])
        }
        guard order.total <= Payment.maximumAmount - valid.tip else {
            throw OrderlyError(
                .totalTooLarge, "an order is at most \(Payment.maximumAmount) minor units with its tip")
        }
        order.customerID = principal.userID
        order.paymentMethod = valid.paymentMethod
        order.tip = valid.tip
        order.customerNotes = valid.customerNotes
        order.storeName = store.name
        order.storePhone = store.phone
        order.autoAccept = store.autoAccept
        return (order, Set(byID.values.filter(\.trackStock).map(\.id)))
    }

    /// Holds the units of each line of a stock-tracked product, a reservation per line (which
    /// the catalog keeps until the order ends), by line index; all or none: the products short
    /// of stock are named together in one `409 insufficient_stock`, without their counts.
    private func hold(_ order: Order, tracked: Set<ProductID>, principal: Principal) async throws
        -> [Int: Reservation]
    {
        let indices = order.items.indices.filter { order.items[$0].productID.map(tracked.contains) == true }
        let lines = indices.compactMap { index in
            order.items[index].productID.map {
                StockHolds.Line(productID: $0, quantity: Int64(order.items[index].quantity), field: "items[\(index)]")
            }
        }
        do {
            let holds = try await stock.hold(
                lines, for: .order(order.id), in: order.storeID, reference: order.id.description,
                expiringIn: lineHoldSeconds, for: principal)
            return Dictionary(uniqueKeysWithValues: zip(indices, holds))
        } catch var error as OrderlyError where error.reason == .insufficientStock {
            // A customer learns which products are short, not how many the store has left.
            if case .array(let products)? = error.details?["products"] {
                error.details = [
                    "products": .array(
                        products.compactMap { product in
                            guard case .object(let fields) = product, let id = fields["product_id"] else { return nil }
                            return .object(["product_id": id])
                        })
                ]
            }
            throw error
        }
    }
}
