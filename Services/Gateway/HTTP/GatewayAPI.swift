internal import Contracts
internal import Domain
internal import Foundation
internal import HTTPTypes
internal import Hummingbird
internal import NIOCore
internal import Runtime
internal import Wire

/// The public HTTP API (`/v1/...`): authentication and users here, everything else forwarded
/// over Wire to the owning service with the caller's principal.
struct GatewayAPI: Sendable {
    let identity: IdentityService
    let orders: WireClient
    let catalog: WireClient
    let payments: WireClient
    let notifications: WireClient
    let wakeHub: WakeHub
    let maximumBodyBytes: Int
    let longPollRecheck: Duration
    let openAPIDocument: ByteBuffer

    func addRoutes(to router: Router<GatewayContext>) {
        router.get("/openapi.yaml") { _, _ in
            Response(
                status: .ok, headers: [.contentType: "application/yaml"],
                body: ResponseBody(byteBuffer: openAPIDocument))
        }
        let v1 = router.group("v1")
        addAuthRoutes(to: v1)
        addUserRoutes(to: v1)
        addStoreRoutes(to: v1)
        addOrderRoutes(to: v1)
        addPaymentRoutes(to: v1)
        addNotificationRoutes(to: v1)
    }

    // MARK: Authentication and users

    private func addAuthRoutes(to v1: RouterGroup<GatewayContext>) {
        v1.post("auth/login") { request, context in
            let login = try await body(LoginRequest.self, request)
            return try JSONBody.response(try await identity.login(login, address: context.clientAddress))
        }
        v1.post("auth/refresh") { request, _ in
            try JSONBody.response(try await identity.refresh(try await body(RefreshRequest.self, request)))
        }
        v1.post("auth/logout") { request, _ in
            let caller = try await principal(request)
            try await identity.logout(try await body(RefreshRequest.self, request), by: caller)
            return Response(status: .noContent)
        }
        v1.get("me") { request, _ in
            let user = try await identity.me(try await principal(request))
            return try JSONBody.response(user, version: user.version)
        }
        v1.put("couriers/me/availability") { request, _ in
            let caller = try await principal(request)
            let user = try await identity.setAvailability(try await body(AvailabilityRequest.self, request), by: caller)
            return try JSONBody.response(user, version: user.version)
        }
    }

    private func addUserRoutes(to v1: RouterGroup<GatewayContext>) {
        v1.post("users") { request, _ in
            let caller = try await principal(request)
            let user = try await identity.create(
                try await body(UserDraft.self, request), by: caller, idempotencyKey: request.headers[.idempotencyKey])
            return try JSONBody.response(user, status: .created, version: user.version)
        }
        v1.get("users") { request, _ in
            let caller = try await principal(request)
            var query = QueryReader(request)
            let store = query.id("store_id", as: StoreID.self)
            let role = query.choices("role", as: Role.self)
            if let role, role.count != 1 { query.problems.add("role", "must be a single role") }
            let page = PageRequest(
                limit: query.int("limit", in: 1...PageRequest.maximumLimit), cursor: query.text("cursor"))
            try query.check()
            return try JSONBody.response(
                try await identity.list(store: store, role: role?.first, page: page, by: caller))
        }
        v1.get("users/:id") { request, context in
            let user = try await identity.get(
                try request.pathID("id", context, as: UserID.self), by: try await principal(request))
            return try JSONBody.response(user, version: user.version)
        }
        v1.patch("users/:id") { request, context in
            let caller = try await principal(request)
            let id = try request.pathID("id", context, as: UserID.self)
            let patch = try await body(UserPatch.self, request)
            let user = try await identity.update(
                id, patch, expectedVersion: try request.expectedVersion() ?? patch.expectedVersion, by: caller)
            return try JSONBody.response(user, version: user.version)
        }
    }

    // MARK: Forwarded to the services

    private func addStoreRoutes(to v1: RouterGroup<GatewayContext>) {
        v1.post("stores") { request, _ in
            let store = try await catalog.call(
                CatalogAPI.createStore, try await body(StoreDraft.self, request), options: try await options(request))
            return try JSONBody.response(store, status: .created, version: store.version)
        }
        v1.get("stores") { request, _ in
            let options = try await options(request)
            return try JSONBody.response(
                try await catalog.call(CatalogAPI.listStores, try pageRequest(request), options: options))
        }
        v1.get("stores/:id") { request, context in
            let options = try await options(request)
            let store = try await catalog.call(
                CatalogAPI.getStore, ResourceRef(id: try request.pathID("id", context, as: StoreID.self)),
                options: options)
            return try JSONBody.response(store, version: store.version)
        }
        v1.patch("stores/:id") { request, context in
            let options = try await options(request)
            let patch = try await patch(
                request, id: try request.pathID("id", context, as: StoreID.self), StoreDraft.self)
            let store = try await catalog.call(CatalogAPI.updateStore, patch, options: options)
            return try JSONBody.response(store, version: store.version)
        }
    }

    private func addOrderRoutes(to v1: RouterGroup<GatewayContext>) {
        v1.post("orders") { request, _ in
            let options = try await options(request)
            let draft = try await JSONBody.collect(request, maximumBytes: maximumBodyBytes)
            return JSONBody.forwarded(
                try await orders.forward(OrdersAPI.createOrder, json: draft, options: options), status: .created,
                versioned: true)
        }
        v1.get("orders") { request, _ in
            let options = try await options(request)
            var query = QueryReader(request)
            if let since = query.text("since") {
                let changes = OrderChangesRequest(
                    since: since, storeID: query.id("store_id", as: StoreID.self),
                    limit: query.int("limit", in: 1...1000))
                let others = query.parameters.map { String($0.key) }.filter {
                    !["since", "store_id", "limit"].contains($0)
                }
                for name in Set(others) { query.problems.add(name, "cannot be combined with since") }
                try query.check()
                return JSONBody.forwarded(try await orders.forward(OrdersAPI.changes, changes, options: options))
            }
            let list = OrderListRequest(
                storeID: query.id("store_id", as: StoreID.self),
                statuses: query.choices("status", as: OrderStatus.self),
                fulfillment: query.choices("fulfillment", as: Fulfillment.self)?.first,
                courierID: query.id("courier_id", as: UserID.self), available: query.bool("available"),
                createdFrom: query.date("created_from"), createdTo: query.date("created_to"),
                dueFrom: query.date("due_from"), dueTo: query.date("due_to"), search: query.text("q"),
                sort: query.choices("sort", as: OrderSort.self)?.first,
                page: PageRequest(
                    limit: query.int("limit", in: 1...PageRequest.maximumLimit), cursor: query.text("cursor")))
            try query.check()
            if list.available == true { try await requireOnDuty(options.principal!) }
            return JSONBody.forwarded(try await orders.forward(OrdersAPI.listOrders, list, options: options))
        }
        v1.get("orders/:id") { request, context in
            let options = try await options(request)
            let order = try await orders.forward(
                OrdersAPI.getOrder, ResourceRef(id: try request.pathID("id", context, as: OrderID.self)),
                options: options)
            return JSONBody.forwarded(order, versioned: true)
        }
        v1.patch("orders/:id") { request, context in
            let options = try await options(request)
            let patch = try await patch(
                request, id: try request.pathID("id", context, as: OrderID.self), OrderDraft.self)
            return JSONBody.forwarded(
                try await orders.forward(OrdersAPI.updateOrder, patch, options: options), versioned: true)
        }
        v1.post("orders/:id/actions/:action") { request, context in
            let options = try await options(request)
            let id = try request.pathID("id", context, as: OrderID.self)
            guard let action = context.parameters.get("action").flatMap(OrderAction.init(rawValue:)) else {
                throw OrderlyError(
                    .notFound,
                    "no such action; actions are " + OrderAction.allCases.map(\.rawValue).joined(separator: ", "))
            }
            let buffer = try await JSONBody.collect(request, maximumBytes: maximumBodyBytes)
            let details = buffer.readableBytes == 0 ? ActionBody() : try JSONBody.decode(ActionBody.self, from: buffer)
            if action == .claim { try await requireOnDuty(options.principal!) }
            let order = try await orders.forward(
                OrdersAPI.performAction,
                OrderActionRequest(
                    id: id, action: action, reason: details.reason,
                    expectedVersion: try request.expectedVersion() ?? details.expectedVersion),
                options: options)
            return JSONBody.forwarded(order, versioned: true)
        }
        v1.get("orders/:id/history") { request, context in
            let options = try await options(request)
            let id = try request.pathID("id", context, as: OrderID.self)
            let history = OrderHistoryRequest(id: id, page: try pageRequest(request))
            return JSONBody.forwarded(try await orders.forward(OrdersAPI.history, history, options: options))
        }
        v1.get("orders/:id/items") { request, context in
            let options = try await options(request)
            let id = try request.pathID("id", context, as: OrderID.self)
            return JSONBody.forwarded(
                try await orders.forward(OrdersAPI.listItems, ResourceRef(id: id), options: options))
        }
        v1.post("orders/:id/items") { request, context in
            try await changeItems(
                request, context, .add, item: try await body(OrderItemDraft.self, request), status: .created)
        }
        v1.patch("orders/:id/items/:item_id") { request, context in
            try await changeItems(request, context, .update, item: try await body(OrderItemDraft.self, request))
        }
        v1.delete("orders/:id/items/:item_id") { request, context in
            try await changeItems(request, context, .remove)
        }
        v1.get("couriers/me/earnings") { request, _ in
            let options = try await options(request)
            var query = QueryReader(request)
            let from = query.date("from")
            let to = query.date("to")
            if from == nil { query.problems.add("from", "is required") }
            if to == nil { query.problems.add("to", "is required") }
            try query.check()
            return JSONBody.forwarded(
                try await orders.forward(OrdersAPI.earnings, EarningsRequest(from: from!, to: to!), options: options))
        }
    }

    /// Adds, changes or removes a line of the order in the path; answers with the whole order.
    private func changeItems(
        _ request: Request, _ context: GatewayContext, _ kind: ItemChange.Kind, item: OrderItemDraft? = nil,
        status: HTTPResponse.Status = .ok
    ) async throws -> Response {
        let options = try await options(request)
        let change = ItemChange(
            orderID: try request.pathID("id", context, as: OrderID.self), kind: kind,
            itemID: kind == .add ? nil : try request.pathID("item_id", context, as: OrderItemID.self), item: item,
            expectedVersion: try request.expectedVersion())
        return JSONBody.forwarded(
            try await orders.forward(OrdersAPI.changeItems, change, options: options), status: status, versioned: true)
    }

    /// Couriers see and claim orders only while on duty.
    private func requireOnDuty(_ principal: Principal) async throws {
        guard principal.role == .courier else { return }
        guard try await identity.me(principal).onDuty else {
            throw OrderlyError(
                .failedPrecondition, "go on duty first: PUT /v1/couriers/me/availability", reason: "off_duty")
        }
    }

    private func addPaymentRoutes(to v1: RouterGroup<GatewayContext>) {
        v1.post("payments") { request, _ in
            let options = try await options(request)
            let payment = try await payments.call(
                PaymentsAPI.recordPayment, try await body(PaymentDraft.self, request), options: options)
            return try JSONBody.response(payment, status: .created)
        }
        v1.get("payments/:id") { request, context in
            let options = try await options(request)
            let id = try request.pathID("id", context, as: PaymentID.self)
            return try JSONBody.response(
                try await payments.call(PaymentsAPI.getPayment, ResourceRef(id: id), options: options))
        }
        v1.get("receipts/:id") { request, context in
            let options = try await options(request)
            let id = try request.pathID("id", context, as: ReceiptID.self)
            return try JSONBody.response(
                try await payments.call(PaymentsAPI.getReceipt, ResourceRef(id: id), options: options))
        }
    }

    /// `GET /v1/notifications?after=&limit=&wait=`: answers at once when there is something
    /// after the cursor; otherwise holds the request up to `wait` seconds (at most 30) and
    /// answers when a wake-up for the caller arrives, re-reading every `longPollRecheck` in
    /// case a wake-up was lost.
    private func addNotificationRoutes(to v1: RouterGroup<GatewayContext>) {
        v1.get("notifications") { request, _ in
            let options = try await options(request)
            var query = QueryReader(request)
            let after = query.int("after", in: 0...Int.max) ?? 0
            let limit = query.int("limit", in: 1...PageRequest.maximumLimit)
            let wait = query.int("wait", in: 0...30) ?? 0
            try query.check()
            let user = options.principal!.userID
            let list = NotificationListRequest(after: Int64(after), limit: limit)
            let deadline = ContinuousClock.now + .seconds(wait)
            let ticket = await wakeHub.enter(user)
            defer { Task { await wakeHub.leave(ticket) } }
            while true {
                let page = try await notifications.call(NotificationsAPI.list, list, options: options)
                let remaining = deadline - ContinuousClock.now
                if !page.data.isEmpty || remaining <= .zero { return try JSONBody.response(page) }
                await wakeHub.wait(ticket, timeout: min(remaining, longPollRecheck))
            }
        }
    }

    // MARK: Helpers

    private func principal(_ request: Request) async throws(OrderlyError) -> Principal {
        guard let header = request.headers[.authorization], header.lowercased().hasPrefix("bearer ") else {
            throw OrderlyError(.unauthenticated, "sign in: send Authorization: Bearer <access token>")
        }
        return try await identity.tokens.verify(accessToken: String(header.dropFirst("bearer ".count)))
    }

    /// The Wire call options of an authenticated request: principal, trace, idempotency key.
    private func options(_ request: Request) async throws -> WireCallOptions {
        WireCallOptions(
            principal: try await principal(request), trace: request.traceParent,
            idempotencyKey: request.headers[.idempotencyKey])
    }

    /// A PATCH body: the changes, and the version they are based on from `If-Match` or the
    /// body's `expected_version`.
    private func patch<ID, Changes: Decodable>(_ request: Request, id: ID, _ type: Changes.Type) async throws
        -> Patch<ID, Changes>
    {
        let buffer = try await JSONBody.collect(request, maximumBytes: maximumBodyBytes)
        let changes = try JSONBody.decode(Changes.self, from: buffer)
        let expected = try JSONBody.decode(ExpectedVersion.self, from: buffer).expectedVersion
        return Patch(id: id, expectedVersion: try request.expectedVersion() ?? expected, changes: changes)
    }

    private func body<Value: Decodable>(_ type: Value.Type, _ request: Request) async throws -> Value {
        try await JSONBody.decode(type, from: request, maximumBytes: maximumBodyBytes)
    }

    private func pageRequest(_ request: Request) throws(OrderlyError) -> PageRequest {
        var query = QueryReader(request)
        let page = PageRequest(
            limit: query.int("limit", in: 1...PageRequest.maximumLimit), cursor: query.text("cursor"))
        try query.check()
        return page
    }
}

/// The optional body of an order action.
struct ActionBody: Decodable, Sendable {
    var reason: String?
    var expectedVersion: Int64?

    enum CodingKeys: String, CodingKey {
        case reason
        case expectedVersion = "expected_version"
    }
}

/// The `expected_version` a PATCH body may carry instead of `If-Match`.
struct ExpectedVersion: Decodable, Sendable {
    var expectedVersion: Int64?

    enum CodingKeys: String, CodingKey { case expectedVersion = "expected_version" }
}
