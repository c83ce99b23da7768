internal import Contracts
public import Domain
internal import Foundation
public import Logging
internal import Redis
public import Runtime
public import ServiceLifecycle
internal import Storage
public import Wire

/// The orders service: orders of every store, created by store staff and taken by couriers.
public enum OrdersService {
    public static let name = OrdersAPI.service
    public static let wirePort = 7201
    public static let adminPort = 9201
    /// The services it calls, with their default addresses.
    public static let upstreams = [CatalogAPI.service: "127.0.0.1:\(7202)"]

    /// The process's parts, ready for `ServiceRunner`.
    public static func services(settings: ServiceSettings, logger: Logger) async throws -> [any Service] {
        let host = try await ServiceHost.start(settings: settings, logger: logger, migrations: OrdersSchema.migrations)
        let directory = StoreDirectory(catalog: host.upstream(CatalogAPI.service))
        let handlers = OrderHandlers(database: host.database, directory: directory)
        var router = WireRouter()
        handlers.register(in: &router)
        // Every replica keeps its own store cache, so each reads the catalog's events in a
        // group of its own.
        let storeEvents = EventConsumer(
            redis: host.consumerRedis(),
            configuration: EventConsumerConfiguration(
                stream: eventStream(of: CatalogAPI.service), group: "orders.stores.\(settings.instance)",
                consumer: settings.instance),
            handlers: [
                "store.created": { event in await directory.remember(try event.payload.decode(as: Store.self)) },
                "store.updated": { event in await directory.remember(try event.payload.decode(as: Store.self)) },
            ],
            logger: logger)
        return host.services(router: router, parts: [storeEvents])
    }
}

/// The order methods: who may do what, validation, pricing and the `order.created` event.
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
        router.register(OrdersAPI.createOrder) { draft, context in
            try await create(
                draft, principal: context.requirePrincipal(),
                idempotencyKey: context.requireIdempotencyKey(for: "creating an order"))
        }
        router.register(OrdersAPI.getOrder) { ref, context in
            try await get(ref.id, principal: context.requirePrincipal())
        }
        router.register(OrdersAPI.listOrders) { request, context in
            try await list(request, principal: context.requirePrincipal())
        }
    }

    func create(_ draft: OrderDraft, principal: Principal, idempotencyKey: String) async throws -> Order {
        let storeID = try principal.targetStore(draft.storeID)
        let valid = try draft.validated()
        let store = try await directory.store(storeID, for: principal)
        let quote: DeliveryQuote
        if valid.fulfillment == .delivery {
            guard let delivery = store.deliveryPricing.quote(forBoxes: valid.boxesCount) else {
                throw OrderlyError.invalidFields(["boxes_count": "has no price in this store's delivery tiers"])
            }
            quote = delivery
        } else {
            quote = DeliveryQuote(fee: 0, multiplier: 0)
        }
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
                fulfillment: valid.fulfillment, status: .pending, version: 1, draft: valid,
                pickupAddress: store.address, quote: quote, currency: store.currency, createdBy: principal.userID,
                createdAt: now)
            try await orders.insert(
                order, changeSequence: try await transaction.nextSequence("orders.changes"), in: transaction)
            transaction.publish(
                DomainEvent(
                    type: "order.created", storeID: storeID, aggregateID: id.description, occurredAt: now,
                    payload: try JSONValue(encoding: order)))
            return order
        }
    }

    func get(_ id: OrderID, principal: Principal) async throws -> Order {
        guard let order = try await database.read({ try await orders.find(id, in: $0) }), principal.canSee(order)
        else { throw OrderlyError(.notFound, "no order \(id)") }
        return order
    }

    func list(_ request: OrderListRequest, principal: Principal) async throws -> Page<Order> {
        let limit = try KeysetCursor.limit(request.page.limit)
        let cursor = try request.page.cursor.map { cursor throws(OrderlyError) in try KeysetCursor(token: cursor) }
        let scope: OrderRepository.Scope
        switch principal.role {
        case .admin: scope = request.storeID.map { .store($0) } ?? .all
        case .owner, .manager, .staff:
            guard let own = principal.storeID, request.storeID == nil || request.storeID == own else {
                return Page(data: [], nextCursor: nil)
            }
            scope = .store(own)
        case .courier: scope = .courier(principal.userID)
        case .customer: scope = .createdBy(principal.userID)
        }
        return try await orders.list(scope, statuses: request.statuses, after: cursor, limit: limit)
    }
}

extension Principal {
    /// Whether this caller may see `order`; everyone else is told it does not exist.
    func canSee(_ order: Order) -> Bool {
        switch role {
        case .admin: return true
        case .owner, .manager, .staff: return storeID == order.storeID
        case .courier:
            if order.courierID == userID { return true }
            let open: Set<OrderStatus> = [.pending, .accepted, .preparing, .ready]
            return order.fulfillment == .delivery && order.courierID == nil && open.contains(order.status)
        case .customer: return order.createdBy == userID
        }
    }
}
