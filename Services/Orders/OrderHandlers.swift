internal import Contracts
internal import Domain
internal import Foundation
internal import Runtime
internal import Storage
internal import Wire

/// The order methods: who may do what, validation, pricing, history and events.
struct OrderHandlers: Sendable {
    let database: Database
    let directory: StoreDirectory
    let orders: OrderRepository
    let idempotency: IdempotencyStore

    init(database: Database, directory: StoreDirectory) {
        self.database = database
        self.directory = directory
        self.orders = OrderRepository(database: database)
        self.idempotency = IdempotencyStore(database: database)
    }

    func register(in router: inout WireRouter) {
        router.registerEncoded(OrdersAPI.createOrder) { draft, context in
            try await create(
                draft, principal: context.requirePrincipal(),
                idempotencyKey: context.requireIdempotencyKey(for: "creating an order"))
        }
        router.registerEncoded(OrdersAPI.getOrder) { ref, context in
            let principal = try context.requirePrincipal()
            let stored = try await visibleStoredOrder(ref.id, to: principal)
            return stored.order.presented(stored.document, for: principal)
        }
        router.register(OrdersAPI.listOrders) { request, context in
            try await list(request, principal: context.requirePrincipal())
        }
        router.register(OrdersAPI.changes) { request, context in
            try await changes(request, principal: context.requirePrincipal())
        }
        router.registerEncoded(OrdersAPI.updateOrder) { patch, context in
            try await update(patch, principal: context.requirePrincipal(), idempotencyKey: context.idempotencyKey)
        }
        router.registerEncoded(OrdersAPI.performAction) { request, context in
            try await perform(
                request, principal: context.requirePrincipal(), idempotencyKey: context.idempotencyKey)
        }
        router.register(OrdersAPI.history) { request, context in
            let principal = try context.requirePrincipal()
            _ = try await visibleOrder(request.id, to: principal)
            let limit = try KeysetCursor.limit(request.page.limit)
            let after = try request.page.cursor.map { cursor throws(OrderlyError) in
                guard let seq = Int64(cursor), seq >= 0 else {
                    throw OrderlyError.invalidFields(["cursor": "is not a cursor this list returned"])
                }
                return seq
            }
            return try await orders.history(of: request.id, after: after ?? 0, limit: limit)
        }
        router.register(OrdersAPI.listItems) { ref, context in
            let order = try await visibleOrder(ref.id, to: try context.requirePrincipal())
            return Page(data: order.items, nextCursor: nil)
        }
        router.registerEncoded(OrdersAPI.changeItems) { change, context in
            try await changeItems(
                change, principal: context.requirePrincipal(), idempotencyKey: context.idempotencyKey)
        }
        router.register(OrdersAPI.earnings) { request, context in
            try await earnings(request, principal: context.requirePrincipal())
        }
    }

    // MARK: Creating and reading

    func create(_ draft: OrderDraft, principal: Principal, idempotencyKey: String) async throws -> EncodedJSON {
        let storeID = try principal.targetStore(draft.storeID)
        let valid = try draft.validated()
        let store = try await directory.store(storeID, for: principal)
        let quote = try Self.quote(valid, in: store)
        let orders = self.orders
        return try await idempotency.write(key: idempotencyKey, scope: "orders.create:\(storeID)", request: draft) {
            transaction in
            let id = valid.id ?? OrderID()
            if valid.id != nil, try await orders.find(id, in: transaction.sql) != nil {
                throw OrderlyError(.conflict, "an order with id \(id) already exists", reason: "already_exists")
            }
            let now = Date.currentMillisecond
            let order = Order(
                id: id, number: try await transaction.nextSequence("orders.number.\(storeID)"), storeID: storeID,
                status: .pending, version: 1, draft: valid, pickupAddress: store.address, quote: quote,
                currency: store.currency, createdBy: principal.userID, createdAt: now)
            let document = try await orders.insert(order, in: transaction)
            try await orders.appendHistory(
                OrderHistoryEntry(
                    seq: 1, orderID: id, at: now, actorID: principal.userID, actorRole: principal.role,
                    change: "created", to: .pending),
                in: transaction)
            transaction.publish(
                DomainEvent(
                    type: "order.created", storeID: storeID, aggregateID: id.description, occurredAt: now,
                    payload: EventPayload(encodedJSON: document)))
            return order.presented(document, for: principal)
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

    /// The order, if `principal` may see it; otherwise `not_found`, as if it did not exist.
    func visibleOrder(_ id: OrderID, to principal: Principal) async throws -> Order {
        try await visibleStoredOrder(id, to: principal).order
    }

    /// The order and its stored JSON, if `principal` may see it; otherwise `not_found`.
    func visibleStoredOrder(_ id: OrderID, to principal: Principal) async throws -> OrderRepository.StoredOrder {
        guard let stored = try await database.read({ try await orders.findStored(id, in: $0) }),
            principal.canSee(stored.order)
        else { throw OrderlyError(.notFound, "no order \(id)") }
        return stored
    }

    func list(_ request: OrderListRequest, principal: Principal) async throws -> Page<Order> {
        let limit = try KeysetCursor.limit(request.page.limit)
        let cursor = try request.page.cursor.map { cursor throws(OrderlyError) in try KeysetCursor(token: cursor) }
        var filter = OrderRepository.Filter(
            statuses: request.statuses ?? [], fulfillment: request.fulfillment, courierID: request.courierID,
            createdFrom: request.createdFrom?.millisecondsSince1970,
            createdTo: request.createdTo?.millisecondsSince1970,
            dueFrom: request.dueFrom?.millisecondsSince1970, dueTo: request.dueTo?.millisecondsSince1970,
            search: request.search)
        if request.available == true {
            guard principal.role == .courier || principal.role == .admin else {
                throw OrderlyError(.permissionDenied, "only couriers list the orders available to claim")
            }
            filter.claimableOnly = true
        }
        guard let scope = scope(of: principal, store: request.storeID) else { return Page(data: [], nextCursor: nil) }
        let page = try await orders.list(
            scope, filter, sort: request.sort ?? .newest, after: cursor, limit: limit)
        return Page(data: page.data.map { $0.presented(for: principal) }, nextCursor: page.nextCursor)
    }

    func changes(_ request: OrderChangesRequest, principal: Principal) async throws -> OrderChangesPage {
        guard let since = Int64(request.since), since >= 0 else {
            throw OrderlyError.invalidFields(["since": "must be 0 or a next_cursor this feed returned"])
        }
        let limit = try KeysetCursor.limit(request.limit, default: 200, maximum: 1000)
        guard let scope = scope(of: principal, store: request.storeID) else {
            return OrderChangesPage(data: [], removed: [], nextCursor: request.since, hasMore: false)
        }
        let changed = try await orders.changes(scope, since: since, limit: limit)
        var data: [Order] = []
        var removed: [OrderID] = []
        for order in changed.orders {
            if principal.canSee(order) {
                data.append(order.presented(for: principal))
            } else {
                removed.append(order.id)
            }
        }
        return OrderChangesPage(
            data: data, removed: removed, nextCursor: String(changed.last), hasMore: changed.hasMore)
    }

    /// The orders a caller's lists cover; nil when `store` is one the caller has no part in.
    private func scope(of principal: Principal, store: StoreID?) -> OrderRepository.Scope? {
        switch principal.role {
        case .admin: return store.map { .store($0) } ?? .all
        case .owner, .manager, .staff:
            guard let own = principal.storeID, store == nil || store == own else { return nil }
            return .store(own)
        case .courier: return .courier(principal.userID)
        case .customer: return .createdBy(principal.userID)
        }
    }

    func earnings(_ request: EarningsRequest, principal: Principal) async throws -> Earnings {
        guard principal.role == .courier else { throw OrderlyError(.permissionDenied, "only couriers have earnings") }
        guard request.from < request.to else { throw OrderlyError.invalidFields(["to": "must be after from"]) }
        let totals = try await orders.earnings(
            of: principal.userID, from: request.from.millisecondsSince1970, to: request.to.millisecondsSince1970)
        return Earnings(
            courierID: principal.userID, from: request.from, to: request.to,
            deliveries: totals.reduce(0) { $0 + $1.deliveries }, totals: totals)
    }

    // MARK: Changing

    /// What a change did, for the history and the event.
    struct Change: Sendable {
        var name: String
        var event: String
        var from: OrderStatus?
        var to: OrderStatus?
        var details: [String: JSONValue]?
    }

    /// Applies `apply` to the order in one transaction: the caller must see the order, the
    /// version must match `expectedVersion` when given, and a change that finds the order
    /// changed meanwhile is refused with 409. Bumps the version, records the history entry and
    /// publishes the event; answers with the order as the caller sees it.
    private func change(
        _ id: OrderID, by principal: Principal, expectedVersion: Int64?, idempotencyKey: String?, scope: String,
        request: some Encodable & Sendable, before check: (@Sendable (Order) throws -> Void)? = nil,
        _ apply: @escaping @Sendable (inout Order) throws -> Change
    ) async throws -> EncodedJSON {
        let orders = self.orders
        return try await idempotency.write(key: idempotencyKey, scope: "\(scope):\(id)", request: request) {
            transaction in
            guard var order = try await orders.find(id, in: transaction.sql) else {
                throw OrderlyError(.notFound, "no order \(id)")
            }
            try check?(order)
            guard principal.canSee(order) else { throw OrderlyError(.notFound, "no order \(id)") }
            if let expectedVersion, expectedVersion != order.version {
                throw OrderlyError.versionConflict(current: order.presented(for: principal))
            }
            let wasInPool = order.isInPool
            let change = try apply(&order)
            let previousVersion = order.version
            let now = Date.currentMillisecond
            order.version += 1
            order.updatedAt = now
            guard
                let document = try await orders.update(
                    order, previousVersion: previousVersion, leftPool: wasInPool && !order.isInPool, in: transaction)
            else {
                throw OrderlyError(.conflict, "the order changed meanwhile; read it again", reason: "version_conflict")
            }
            let entry = OrderHistoryEntry(
                seq: order.version, orderID: id, at: now, actorID: principal.userID, actorRole: principal.role,
                change: change.name, from: change.from, to: change.to, details: change.details)
            let entryText = try await orders.appendHistory(entry, in: transaction)
            // The payload: the order as it now is, and the change that made it so.
            transaction.publish(
                DomainEvent(
                    type: change.event, storeID: order.storeID, aggregateID: id.description, occurredAt: now,
                    payload: EventPayload(members: [
                        "order": EventPayload(encodedJSON: document), "change": EventPayload(encodedJSON: entryText),
                    ])))
            return order.presented(document, for: principal)
        }
    }

    func perform(_ request: OrderActionRequest, principal: Principal, idempotencyKey: String?) async throws
        -> EncodedJSON
    {
        var problems = FieldProblems()
        let reason = problems.optionalText(
            request.reason, "reason", maximumLength: 500, required: request.action == .cancel)
        try problems.check()
        let action = request.action
        return try await change(
            request.id, by: principal, expectedVersion: request.expectedVersion, idempotencyKey: idempotencyKey,
            scope: "orders.action", request: request,
            before: { order in
                // Couriers racing for an order: the ones that lose learn it was taken, not that it vanished.
                if action == .claim, principal.role == .courier, order.fulfillment == .delivery,
                    let courier = order.courierID, courier != principal.userID
                {
                    throw OrderlyError(.conflict, "another courier claimed this order first", reason: "already_claimed")
                }
            }
        ) { order in
            let transition: OrderTransition
            switch order.transition(action, by: principal) {
            case .success(let allowed): transition = allowed
            case .failure(let refusal): throw refusal.error
            }
            let now = Date.currentMillisecond
            let previousCourier = order.courierID
            order.status = transition.to
            order.courierID = transition.courierID
            switch action {
            case .claim: order.claimedAt = now
            case .release: order.claimedAt = nil
            case .deliver: order.deliveredAt = now
            case .cancel: order.cancellationReason = reason
            default: break
            }
            let event: String
            switch action {
            case .claim: event = "order.claimed"
            case .release: event = "order.released"
            default: event = "order.status_changed"
            }
            var details: [String: JSONValue] = [:]
            if let reason { details["reason"] = .string(reason) }
            if action == .claim || action == .release, let courier = transition.courierID ?? previousCourier {
                details["courier_id"] = .string(courier.description)
            }
            return Change(
                name: action.rawValue, event: event, from: transition.from, to: transition.to,
                details: details.isEmpty ? nil : details)
        }
    }

    func update(_ patch: OrderPatch, principal: Principal, idempotencyKey: String?) async throws -> EncodedJSON {
        let current = try await visibleOrder(patch.id, to: principal)
        try principal.requireStoreEditor(of: current)
        let store = try await directory.store(current.storeID, for: principal)
        return try await change(
            patch.id, by: principal, expectedVersion: patch.expectedVersion, idempotencyKey: idempotencyKey,
            scope: "orders.update", request: patch
        ) { order in
            try order.requireEditable()
            let valid = try order.merging(patch.changes)
            if valid.fulfillment == .pickup, order.courierID != nil {
                throw OrderlyError(
                    .failedPrecondition,
                    "a courier has claimed this order; it must be released before it becomes a pickup",
                    reason: "order_claimed")
            }
            let before = try JSONValue(encoding: order)
            order.assign(valid, quote: try Self.quote(valid, in: store))
            guard case .object(let old) = before, case .object(let new) = try JSONValue(encoding: order) else {
                throw OrderlyError(.internal, "an order did not encode as an object")
            }
            let fields = Set(old.keys).union(new.keys).filter { old[$0] != new[$0] }.sorted()
            return Change(
                name: "updated", event: "order.updated",
                details: ["fields": .array(fields.map { .string($0) })])
        }
    }

    func changeItems(_ request: ItemChange, principal: Principal, idempotencyKey: String?) async throws
        -> EncodedJSON
    {
        let current = try await visibleOrder(request.orderID, to: principal)
        try principal.requireStoreEditor(of: current)
        let rates = try await directory.store(current.storeID, for: principal).vatRates
        return try await change(
            request.orderID, by: principal, expectedVersion: request.expectedVersion, idempotencyKey: idempotencyKey,
            scope: "orders.items", request: request
        ) { order in
            try order.requireEditable()
            let change: String
            let item: OrderItem
            switch request.kind {
            case .add:
                guard order.items.count < Order.maximumItems else {
                    throw OrderlyError(
                        .failedPrecondition, "an order holds at most \(Order.maximumItems) items",
                        reason: "too_many_items")
                }
                item = try (request.item ?? OrderItemDraft()).newItem(rates: rates)
                guard !order.items.contains(where: { $0.id == item.id }) else {
                    throw OrderlyError(.conflict, "the order already has an item \(item.id)", reason: "already_exists")
                }
                order.items.append(item)
                change = "item_added"
            case .update, .remove:
                guard let itemID = request.itemID, let index = order.items.firstIndex(where: { $0.id == itemID }) else {
                    throw OrderlyError(.notFound, "no item \(request.itemID?.description ?? "") in this order")
                }
                if request.kind == .update {
                    item = try (request.item ?? OrderItemDraft()).applied(to: order.items[index], rates: rates)
                    order.items[index] = item
                    change = "item_changed"
                } else {
                    item = order.items.remove(at: index)
                    change = "item_removed"
                }
            }
            try order.recomputeTotals()
            return Change(
                name: change, event: "order.updated",
                details: ["item_id": .string(item.id.description), "description": .string(item.description)])
        }
    }
}

extension Order {
    /// Whether every courier can see and (once accepted) claim it: an unclaimed open delivery.
    var isInPool: Bool {
        fulfillment == .delivery && courierID == nil && OrderRepository.openStatuses.contains(status)
    }

    /// The order as `principal` receives it: with the actions open to them.
    func presented(for principal: Principal) -> Order {
        var order = self
        order.allowedActions = allowedActions(for: principal)
        return order
    }

    /// The same from the order's stored JSON (`document`, which never holds `allowed_actions`),
    /// without encoding the order again: the actions are written in front of its fields.
    func presented(_ document: String, for principal: Principal) -> EncodedJSON {
        let actions = allowedActions(for: principal).map { JSONValue.quoted($0.rawValue) }.joined(separator: ",")
        return EncodedJSON("{\"allowed_actions\":[" + actions + "]," + document.dropFirst())
    }
}

extension Principal {
    /// Whether this caller may see `order`; everyone else is told it does not exist.
    func canSee(_ order: Order) -> Bool {
        switch role {
        case .admin: return true
        case .owner, .manager, .staff: return storeID == order.storeID
        case .courier: return order.courierID == userID || order.isInPool
        case .customer: return order.createdBy == userID
        }
    }

    /// Only the store's users and admins change an order's fields and items.
    func requireStoreEditor(of order: Order) throws(OrderlyError) {
        switch role {
        case .admin: return
        case .owner, .manager,
            .staff where storeID == order.storeID:
            return
        default: throw OrderlyError(.permissionDenied, "only the store's staff change an order's details and items")
        }
    }
}
