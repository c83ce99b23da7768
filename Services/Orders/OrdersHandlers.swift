import Contracts
import Domain
import Foundation
import Logging
import Runtime
import Storage
import Wire

/// The orders service's Wire methods: each decodes its request, asks `AccessPolicy`,
/// validates, prices, calls the repository, records the history and publishes the event.
struct OrdersHandlers: Sendable {
    let database: Database
    let stores: StoreDirectory
    /// Products and their stock, for catalog lines.
    let catalog: any WireCaller
    /// How long a line's stock is held before the catalog sees the line stored (`OrdersSettings`).
    let lineHoldSeconds: Int
    let logger: Logger

    var orders: OrdersRepository { OrdersRepository(database: database) }
    var book: OrderBook { OrderBook(orders: orders) }
    var stock: StockHolds { StockHolds(catalog: catalog, logger: logger) }
    var idempotency: IdempotencyStore { IdempotencyStore(database: database) }

    func register(in router: inout WireRouter) {
        router.register(OrdersAPI.createOrder) { draft, context in
            try await create(
                draft, principal: context.requirePrincipal(),
                idempotencyKey: context.requireIdempotencyKey(for: "creating an order"))
        }
        router.register(OrdersAPI.checkout) { request, context in
            try await checkout(
                request, principal: context.requirePrincipal(),
                idempotencyKey: context.requireIdempotencyKey(for: "checking out"))
        }
        router.register(OrdersAPI.getOrder) { ref, context in
            let policy = AccessPolicy(try context.requirePrincipal())
            return policy.present(try await visibleOrder(ref.id, policy))
        }
        router.register(OrdersAPI.listOrders) { request, context in
            try await list(request, principal: context.requirePrincipal())
        }
        router.register(OrdersAPI.changes) { request, context in
            try await changes(request, principal: context.requirePrincipal())
        }
        router.register(OrdersAPI.updateOrder) { patch, context in
            try await update(patch, principal: context.requirePrincipal(), idempotencyKey: context.idempotencyKey)
        }
        router.register(OrdersAPI.archiveOrder) { ref, context in
            try await archive(ref.id, principal: context.requirePrincipal(), idempotencyKey: context.idempotencyKey)
        }
        router.register(OrdersAPI.performAction) { request, context in
            try await perform(request, principal: context.requirePrincipal(), idempotencyKey: context.idempotencyKey)
        }
        router.register(OrdersAPI.history) { request, context in
            try await history(request, principal: context.requirePrincipal())
        }
        router.register(OrdersAPI.listItems) { ref, context in
            let order = try await visibleOrder(ref.id, AccessPolicy(try context.requirePrincipal()))
            return Page(data: order.items, nextCursor: nil)
        }
        router.register(OrdersAPI.changeItems) { change, context in
            try await changeItems(change, principal: context.requirePrincipal(), idempotencyKey: context.idempotencyKey)
        }
        router.register(OrdersAPI.earnings) { request, context in
            try await earnings(request, principal: context.requirePrincipal())
        }
    }

    // MARK: Creating and reading

    func create(_ draft: OrderDraft, principal: Principal, idempotencyKey: String) async throws -> Order {
        let policy = AccessPolicy(principal)
        let storeID = try policy.storeForWriting(draft.storeID)
        let store = try await stores.store(storeID, for: principal)
        let valid = try draft.validated(storeWorkflow: store.workflow)
        let quote = try Self.quote(valid, in: store)
        let (orders, book) = (self.orders, self.book)
        return try await idempotency.write(
            key: idempotencyKey, caller: principal.userID, scope: "orders.create:\(storeID)", request: draft,
            replay: replay(for: policy)
        ) {
            transaction in
            let id = valid.id ?? OrderID()
            if valid.id != nil, try await orders.find(id, in: transaction.sql) != nil {
                throw OrderlyError(.alreadyExists, "an order with id \(id) already exists")
            }
            // A store that dispatches on creation sends its delivery straight to the couriers' pool;
            // a repair is booked in, and the store despatches it itself.
            let repair = valid.workflow == .repair
            let dispatched = !repair && valid.fulfillment == .delivery && store.dispatch == .onCreate
            var order = Order(
                id: id, number: 0, storeID: storeID, status: repair ? .bookedIn : dispatched ? .ready : .pending,
                version: 1, draft: valid,
                pickupAddress: store.address, quote: quote, currency: store.currency, createdBy: principal.userID,
                createdAt: Date.currentMillisecond)
            try await book.open(
                &order, by: .user(principal),
                details: dispatched ? ["dispatch": .string(Dispatch.onCreate.rawValue)] : nil,
                in: transaction)
            return policy.present(order)
        }
    }

    /// The delivery fee of a draft in `store`: from its tiers for a delivery, nothing for a pickup.
    static func quote(_ draft: ValidOrderDraft, in store: Store) throws(OrderlyError) -> DeliveryQuote {
        guard draft.fulfillment == .delivery else { return DeliveryQuote(fee: 0, multiplier: 0) }
        guard let quote = store.deliveryPricing.quote(forBoxes: draft.boxesCount) else {
            throw OrderlyError.invalidFields(["boxes_count": "has no price in this store's delivery tiers"])
        }
        return quote
    }

    /// How a repeated keyed write is answered: with the order as the caller may see it now, or
    /// `not_found`, since what they were told then (a claimed order's phone, say) may no longer
    /// be theirs to see. The record keeps only `{"id": …}`; a record that kept the whole order
    /// reads the same way.
    func replay(for policy: AccessPolicy) -> Replay<Order, ResourceRef<OrderID>> {
        Replay(reference: { ResourceRef(id: $0.id) }) { [self] stored in
            policy.present(try await visibleOrder(stored.id, policy))
        }
    }

    /// The order, if the caller may see it; otherwise `not_found`, as if it did not exist.
    func visibleOrder(_ id: OrderID, _ policy: AccessPolicy) async throws -> Order {
        guard let order = try await database.read({ try await orders.find(id, in: $0) }), policy.canSee(order: order)
        else { throw OrderlyError(.notFound, "no order \(id)") }
        return order
    }

    func list(_ request: OrderListRequest, principal: Principal) async throws -> Page<Order> {
        let policy = AccessPolicy(principal)
        let limit = try KeysetCursor.limit(request.page.limit)
        let cursor = try request.page.cursor.map { cursor throws(OrderlyError) in try KeysetCursor(token: cursor) }
        var filter = OrdersRepository.Filter(
            statuses: request.statuses ?? [], fulfillment: request.fulfillment, courierID: request.courierID,
            createdFrom: request.createdFrom?.millisecondsSince1970,
            createdTo: request.createdTo?.millisecondsSince1970,
            dueFrom: request.dueFrom?.millisecondsSince1970, dueTo: request.dueTo?.millisecondsSince1970,
            search: request.search)
        filter.phoneSearchLimitedTo = policy.phoneSearchLimitedTo
        filter.storeID = request.storeID
        filter.archived = request.archived == true
        if request.available == true {
            try policy.checkPoolListing()
            filter.poolOnly = true
        }
        let page = try await orders.list(
            policy.visibleOrders(store: request.storeID), filter, sort: request.sort ?? .newest, after: cursor,
            limit: limit, counting: request.page.counting)
        return page.map(policy.present)
    }

    /// What changed in the caller's scope after the cursor. An order that changed and left the
    /// caller's sight (a courier's view of an order another courier claimed) is named in
    /// `removed`.
    func changes(_ request: OrderChangesRequest, principal: Principal) async throws -> OrderChangesPage {
        guard let since = Int64(digits: request.since) else {
            throw OrderlyError.invalidFields(["since": "must be 0 or a next_cursor this feed returned"])
        }
        let limit = try KeysetCursor.limit(request.limit, default: 200, maximum: 1000)
        let policy = AccessPolicy(principal)
        let changed = try await orders.changes(policy.visibleOrders(store: request.storeID), since: since, limit: limit)
        var data: [Order] = []
        var removed: [OrderID] = []
        for order in changed.orders {
            if policy.canSee(order: order) {
                data.append(policy.present(order))
            } else {
                removed.append(order.id)
            }
        }
        return OrderChangesPage(
            data: data, removed: removed, nextCursor: String(changed.last), hasMore: changed.hasMore)
    }

    func history(_ request: OrderHistoryRequest, principal: Principal) async throws -> Page<OrderHistoryEntry> {
        _ = try await visibleOrder(request.id, AccessPolicy(principal))
        let limit = try KeysetCursor.limit(request.page.limit)
        let after = try request.page.cursor.map { cursor throws(OrderlyError) in
            guard let seq = Int64(digits: cursor) else {
                throw OrderlyError.invalidFields(["cursor": "is not a cursor this list returned"])
            }
            return seq
        }
        return try await orders.history(
            of: request.id, after: after ?? 0, limit: limit, counting: request.page.counting)
    }

    func earnings(_ request: EarningsRequest, principal: Principal) async throws -> Earnings {
        guard AccessPolicy(principal).hasEarnings else {
            throw OrderlyError(.permissionDenied, "only couriers have earnings")
        }
        guard request.from < request.to else { throw OrderlyError.invalidFields(["to": "must be after from"]) }
        let zoneName = request.timeZone ?? "UTC"
        guard let zone = TimeZone(identifier: zoneName) else {
            throw OrderlyError.invalidFields(["tz": "must be an IANA time zone such as Asia/Jerusalem"])
        }
        let days = try await orders.earnings(
            of: principal.userID, from: request.from.millisecondsSince1970, to: request.to.millisecondsSince1970,
            in: zone)
        var totals: [CurrencyCode: Earnings.Total] = [:]
        for total in days.flatMap(\.totals) {
            var sum =
                totals[total.currency]
                ?? Earnings.Total(
                    currency: total.currency, deliveries: 0, deliveryFees: 0, tips: 0, cashCollected: 0)
            sum.deliveries += total.deliveries
            sum.deliveryFees += total.deliveryFees
            sum.tips += total.tips
            sum.cashCollected += total.cashCollected
            totals[total.currency] = sum
        }
        let sums = totals.values.sorted { $0.currency.code < $1.currency.code }
        return Earnings(
            courierID: principal.userID, from: request.from, to: request.to, timeZone: zoneName,
            deliveries: sums.reduce(0) { $0 + $1.deliveries }, totals: sums, days: days)
    }

    // MARK: Changing

    typealias Change = OrderBook.Change

    /// Applies `apply` to the order in one transaction: the caller must see the order, the
    /// version must match `expectedVersion` when given, and a change that finds the order
    /// changed meanwhile is refused with 409. The book records it (`OrderBook.record`); answers
    /// with the order as the caller sees it.
    private func change(
        _ id: OrderID, by principal: Principal, expectedVersion: Int64?, idempotencyKey: String?, scope: String,
        request: some Encodable & Sendable, _ apply: @escaping @Sendable (inout Order) throws -> Change
    ) async throws -> Order {
        try await change(
            id, by: principal, expectedVersion: expectedVersion, idempotencyKey: idempotencyKey, scope: scope,
            request: request,
            decide: { [policy = AccessPolicy(principal)] order, _ in
                guard policy.canSee(order: order) else { throw OrderlyError(.notFound, "no order \(id)") }
            }, { order, _ in try apply(&order) })
    }

    /// The same, with what the caller may do decided first by `decide` (which also refuses an
    /// order the caller may not see) and handed to `apply`.
    private func change<Decision: Sendable>(
        _ id: OrderID, by principal: Principal, expectedVersion: Int64?, idempotencyKey: String?, scope: String,
        request: some Encodable & Sendable,
        decide: @escaping @Sendable (Order, Transaction) async throws -> Decision,
        _ apply: @escaping @Sendable (inout Order, Decision) throws -> Change
    ) async throws -> Order {
        let (orders, book) = (self.orders, self.book)
        let policy = AccessPolicy(principal)
        return try await idempotency.write(
            key: idempotencyKey, caller: principal.userID, scope: "\(scope):\(id)", request: request,
            replay: replay(for: policy)
        ) {
            transaction in
            guard var order = try await orders.find(id, in: transaction.sql) else {
                throw OrderlyError(.notFound, "no order \(id)")
            }
            let decision = try await decide(order, transaction)
            if let expectedVersion, expectedVersion != order.version {
                throw OrderlyError.versionConflict(current: policy.present(order))
            }
            let read = order
            let change = try apply(&order, decision)
            guard try await book.record(&order, changedFrom: read, change, by: .user(principal), in: transaction) else {
                throw OrderlyError(.versionConflict, "the order changed meanwhile; read it again")
            }
            return policy.present(order)
        }
    }

    func perform(_ request: OrderActionRequest, principal: Principal, idempotencyKey: String?) async throws -> Order {
        let (reason, cash) = try request.validated()
        let action = request.action
        let policy = AccessPolicy(principal)
        return try await change(
            request.id, by: principal, expectedVersion: request.expectedVersion, idempotencyKey: idempotencyKey,
            scope: "orders.action", request: request,
            decide: { [orders] order, transaction -> OrderTransition? in
                // A claim is the claim rule's alone to decide, seeing the order and what the
                // courier carries already included; one courier's claims and releases are
                // counted one at a time.
                if action == .claim || action == .release, principal.role == .courier {
                    try await transaction.lock(.claims(of: principal.userID))
                }
                if action == .claim {
                    let carried = try await orders.carried(by: principal.userID, in: transaction.sql)
                    return try policy.claim(order, carrying: carried).mapError(\.error).get()
                }
                guard policy.canSee(order: order) else { throw OrderlyError(.notFound, "no order \(order.id)") }
                if action == .release {
                    let released = try await orders.releases(
                        by: principal.userID, since: Date().addingTimeInterval(-OrderPool.releaseWindow),
                        in: transaction.sql)
                    if let refusal = policy.checkRelease(releasedToday: released) { throw refusal.error }
                }
                return nil
            }
        ) { order, claim in
            let transition = try claim ?? policy.transition(action, on: order).mapError(\.error).get()
            let now = Date.currentMillisecond
            let previousCourier = order.courierID
            order.status = transition.to
            order.courierID = transition.courierID
            switch action {
            case .claim:
                order.claimedAt = now
                order.courierFirstName = request.courierFirstName
            case .release:
                order.claimedAt = nil
                order.courierFirstName = nil
            case .deliver:
                if cash != nil, !policy.mayStateCash(for: order) {
                    throw OrderlyError(
                        .permissionDenied, "only the courier carrying the order states the cash collected for it")
                }
                order.deliveredAt = now
                order.cashCollected = try order.collectedCash(cash)
            case .cancel: order.cancellationReason = reason
            default: break
            }
            let event: String
            switch action {
            case .claim: event = OrdersAPI.Events.claimed
            case .release: event = OrdersAPI.Events.released
            default: event = OrdersAPI.Events.statusChanged
            }
            var details: [String: JSONValue] = [:]
            if let reason { details["reason"] = .string(reason) }
            if let cash = order.cashCollected, action == .deliver { details["cash_collected"] = .int(cash) }
            if action == .claim || action == .release, let courier = transition.courierID ?? previousCourier {
                details["courier_id"] = .string(courier.description)
            }
            return Change(
                name: action.rawValue, event: event, from: transition.from, to: transition.to,
                details: details.isEmpty ? nil : details, releasedBy: action == .release ? previousCourier : nil)
        }
    }

    /// What a cancel by archiving gives as its reason.
    static let archivedReason = "archived by the store"

    /// Archives an order for its store, which keeps it for the accounts and leaves it out of
    /// every list: a cancelled one as it is; a pending one cancelled in the same change (as the
    /// caller's cancel, by its rule, so its payments are refunded as a cancel's are). Any other
    /// is 422 `illegal_transition`; an archived one is answered as it is.
    func archive(_ id: OrderID, principal: Principal, idempotencyKey: String?) async throws -> Order {
        let policy = AccessPolicy(principal)
        let current = try await visibleOrder(id, policy)
        if current.archivedAt != nil { return policy.present(current) }
        return try await change(
            id, by: principal, expectedVersion: nil, idempotencyKey: idempotencyKey, scope: "orders.archive",
            request: ResourceRef(id: id)
        ) { order in
            guard policy.canArchive(order) else {
                throw OrderlyError(
                    .permissionDenied,
                    "only the store's owners, managers and staff and the platform's admins archive its orders")
            }
            let from = order.status
            var details: [String: JSONValue]?
            switch from {
            case .cancelled: break
            case .pending:
                let transition = try policy.transition(.cancel, on: order).mapError(\.error).get()
                order.status = transition.to
                order.cancellationReason = Self.archivedReason
                details = ["reason": .string(Self.archivedReason)]
            default:
                throw OrderlyError(
                    .illegalTransition, "only a pending or cancelled order is archived; this one is \(from.rawValue)",
                    details: ["status": .string(from.rawValue)])
            }
            order.archivedAt = order.archivedAt ?? Date.currentMillisecond
            return from == order.status
                ? Change(name: "archive", event: OrdersAPI.Events.updated)
                : Change(
                    name: "archive", event: OrdersAPI.Events.statusChanged, from: from, to: order.status,
                    details: details)
        }
    }

    func update(_ patch: OrderPatch, principal: Principal, idempotencyKey: String?) async throws -> Order {
        let policy = AccessPolicy(principal)
        let current = try await visibleOrder(patch.id, policy)
        try policy.checkEdit(current)
        let store = try await stores.store(current.storeID, for: principal)
        return try await change(
            patch.id, by: principal, expectedVersion: patch.expectedVersion, idempotencyKey: idempotencyKey,
            scope: "orders.update", request: patch
        ) { order in
            try policy.checkEdit(order)
            let valid = try order.merging(patch.changes)
            if valid.fulfillment == .pickup, order.courierID != nil {
                throw OrderlyError(
                    .orderClaimed,
                    "a courier has claimed this order; it must be released before it becomes a pickup")
            }
            let before = try JSONValue(encoding: order)
            let (fee, total) = (order.deliveryFee, order.total)
            order.assign(valid, quote: try Self.quote(valid, in: store))
            if order.deliveryFee != fee || order.total != total, !policy.mayChangeMoney(of: order) {
                throw OrderlyError(
                    .permissionDenied,
                    "\(ErrorTexts.withArticle(principal.role.rawValue)) changes no order line, price, tip or cash amount: "
                        + "this change moves the delivery fee")
            }
            guard case .object(let old) = before, case .object(let new) = try JSONValue(encoding: order) else {
                throw OrderlyError(.internal, "an order did not encode as an object")
            }
            let fields = Set(old.keys).union(new.keys).filter { old[$0] != new[$0] }.sorted()
            return Change(
                name: "updated", event: OrdersAPI.Events.updated,
                details: ["fields": .array(fields.map { .string($0) })])
        }
    }

    /// Adds, changes or removes a line. A catalog product's line is priced by the product, and the
    /// orders service's step of the order-line saga reserves what it adds (a new line, a larger
    /// quantity) before the line is stored, so that a shortage is refused at once; the reservation
    /// is listed on the line, which the catalog then keeps held until the order ends (the catalog's
    /// `OrderHoldsFollower`). A reservation the change did not store is given back; one left by a crash
    /// expires.
    func changeItems(_ request: ItemChange, principal: Principal, idempotencyKey: String?) async throws -> Order {
        let policy = AccessPolicy(principal)
        let current = try await visibleOrder(request.orderID, policy)
        try policy.checkEdit(current, money: true)
        try request.item?.checkDevice(named: request.deviceStoreID, in: current.storeID)
        let rates = try await stores.store(current.storeID, for: principal).vatRates
        // A repeat is answered from its record, and must not hold stock again.
        let repeated = try await idempotency.isRepeat(
            key: idempotencyKey, caller: principal.userID, scope: "orders.items:\(request.orderID)", request: request)
        let (product, hold) =
            repeated ? (nil, nil) : try await reserveForLine(request, current, rates: rates, principal: principal)
        let held = hold?.lines.first?.quantity ?? 0
        let order: Order
        do {
            order = try await change(
                request.orderID, by: principal, expectedVersion: request.expectedVersion,
                idempotencyKey: idempotencyKey, scope: "orders.items", request: request
            ) { order in
                try policy.checkEdit(order, money: true)
                let change: String
                let item: OrderItem
                switch request.kind {
                case .add:
                    guard order.items.count < Order.maximumItems else {
                        throw OrderlyError(
                            .tooManyItems, "an order holds at most \(Order.maximumItems) items")
                    }
                    let draft = request.item ?? OrderItemDraft()
                    item =
                        try product.map { product throws(OrderlyError) in
                            try draft.newItem(of: product, currency: order.currency, holding: hold?.id)
                        } ?? draft.newItem(rates: rates)
                    guard !order.items.contains(where: { $0.id == item.id }) else {
                        throw OrderlyError(
                            .alreadyExists, "the order already has an item \(item.id)")
                    }
                    order.items.append(item)
                    change = "item_added"
                case .update, .remove:
                    guard let itemID = request.itemID, let index = order.items.firstIndex(where: { $0.id == itemID })
                    else {
                        throw OrderlyError(.notFound, "no item \(request.itemID?.description ?? "") in this order")
                    }
                    if request.kind == .update {
                        var changed = try (request.item ?? OrderItemDraft()).applied(
                            to: order.items[index], rates: rates)
                        // What was reserved covers exactly the line's growth since it was read.
                        if changed.reservationIDs != nil {
                            guard max(0, Int64(changed.quantity - order.items[index].quantity)) == held else {
                                throw OrderlyError(
                                    .versionConflict, "the line changed meanwhile; read the order again")
                            }
                            if let hold { changed.reservationIDs?.append(hold.id) }
                        }
                        item = changed
                        order.items[index] = item
                        change = "item_changed"
                    } else {
                        item = order.items.remove(at: index)
                        change = "item_removed"
                    }
                }
                try order.recomputeTotals()
                var details: [String: JSONValue] = [
                    "item_id": .string(item.id.description), "description": .string(item.description),
                ]
                // The catalog gives a removed line's stock back from these, seen listed or not.
                if change == "item_removed", let held = item.reservationIDs {
                    details["reservation_ids"] = .array(held.map { .string($0.description) })
                }
                return Change(name: change, event: OrdersAPI.Events.updated, details: details)
            }
        } catch {
            if let hold { await stock.giveBack([hold], for: principal) }
            throw error
        }
        // A replayed request answers as the first time, whose line lists another reservation.
        if let hold, !order.items.contains(where: { $0.reservationIDs?.contains(hold.id) == true }) {
            await stock.giveBack([hold], for: principal)
        }
        return order
    }

    /// For a change that adds units of a stock-tracked catalog product (a new line, a larger
    /// quantity): the product of a new line, and the reservation of the units added, made for
    /// the order. Checks the line as it would be first, so that bad fields are named before
    /// anything is held.
    private func reserveForLine(_ request: ItemChange, _ order: Order, rates: VATRates, principal: Principal)
        async throws -> (product: Product?, hold: Reservation?)
    {
        let draft = request.item ?? OrderItemDraft()
        let productID: ProductID
        let units: Int64
        var product: Product?
        switch request.kind {
        case .add:
            guard let id = draft.productID else { return (nil, nil) }
            guard let found = try await stock.sellable([id], in: order.storeID, for: principal)[id] else {
                throw OrderlyError(.notFound, "no product \(id) in the order's store")
            }
            let line = try draft.newItem(of: found, currency: order.currency, holding: nil)
            guard found.trackStock else { return (found, nil) }
            (productID, units, product) = (id, Int64(line.quantity), found)
        case .update:
            guard let item = order.items.first(where: { $0.id == request.itemID }), item.reservationIDs != nil,
                let id = item.productID
            else { return (nil, nil) }
            let line = try draft.applied(to: item, rates: rates)
            guard line.quantity > item.quantity else { return (nil, nil) }
            (productID, units) = (id, Int64(line.quantity - item.quantity))
        case .remove:
            return (nil, nil)
        }
        do {
            let holds = try await stock.hold(
                [StockHolds.Line(productID: productID, quantity: units, field: "")], for: .order(order.id),
                in: order.storeID, reference: order.id.description, expiringIn: lineHoldSeconds, for: principal)
            return (product, holds.first)
        } catch var error as OrderlyError where error.reason == .insufficientStock {
            // The line's one product, named at the top as for a stock adjustment.
            if case .array(let products)? = error.details?["products"], case .object(let short)? = products.first {
                error.details = short
            }
            throw error
        }
    }
}
