import Contracts
import Domain
import HTTPTypes
import Hummingbird
import NIOCore
import Wire

/// `/v1/orders…` and `/v1/couriers/me/earnings`, forwarded to the orders service, whose JSON is
/// passed on as it wrote it; a cancel (and an archive, which cancels a pending order) is first
/// checked with the payments service, which refunds the order's payments after it. A courier's
/// calls carry whether they are on duty now, which the gateway owns and the orders service
/// decides by.
struct OrderRoutes: Sendable {
    let orders: any WireCaller
    /// Asked before a cancel whether the caller may refund what it would refund, and for the
    /// customer's device an order's line names.
    let payments: any WireCaller
    let identity: UsersHandlers
    /// A customer's saved addresses, which a checkout may name by id.
    let addresses: AddressesHandlers

    func add(to v1: RouterGroup<GatewayContext>) {
        v1.post("orders", use: withDuty(create))
            .get("orders/changes", use: withDuty(changes))
            .get("orders", use: withDuty(list))
            .get("orders/:id", use: withDuty(get))
            .patch("orders/:id", use: withDuty(update))
            .delete("orders/:id", use: withDuty(archive))
            .post("orders/:id/actions/:action", use: withDuty(perform))
            .get("orders/:id/history", use: withDuty(history))
            .get("orders/:id/items", use: withDuty(items))
            .post("orders/:id/items", use: withDuty(addItem))
            .patch("orders/:id/items/:item_id", use: withDuty(changeItem))
            .delete("orders/:id/items/:item_id", use: withDuty(removeItem))
            .get("couriers/me/earnings", use: withDuty(earnings))
    }

    /// The route handler of `endpoint`, its caller marked on or off duty when a courier.
    private func withDuty(_ endpoint: @escaping SignedInEndpoint)
        -> @Sendable (Request, GatewayContext) async throws
        -> Response
    {
        signedIn { [identity] request in
            guard request.principal.role == .courier else { return try await endpoint(request) }
            var request = request
            request.principal.onDuty = try await identity.me(request.principal).onDuty
            return try await endpoint(request)
        }
    }

    /// A store's new order, or a customer's checkout: their cart with the saved address it names
    /// put in place of `address_id`, and their name and phone as the recipient's.
    @Sendable func create(_ request: SignedInRequest) async throws -> Response {
        let draft = try await request.body()
        if request.principal.role == .customer {
            var checkout = try JSONBody.decode(CheckoutDraft.self, from: draft)
            if let id = checkout.addressID {
                guard checkout.address == nil else {
                    throw OrderlyError.invalidFields(["address": "give address_id or address, not both"])
                }
                guard let saved = try await addresses.address(id, by: request.principal) else {
                    throw OrderlyError.invalidFields(["address_id": "is not one of your addresses"])
                }
                checkout.address = AddressFields(saved)
            }
            let me = try await identity.me(request.principal)
            let forwarded = CheckoutRequest(draft: checkout, customer: CheckoutCustomer(name: me.name, phone: me.phone))
            return JSONBody.forwarded(
                try await orders.forward(OrdersAPI.checkout, forwarded, options: request.options), status: .created,
                versioned: true)
        }
        try JSONBody.check(draft, as: OrderDraft.self)
        return JSONBody.forwarded(
            try await orders.forward(OrdersAPI.createOrder, json: draft, options: request.options), status: .created,
            versioned: true)
    }

    /// The change feed; the orders service, which owns it, decides whether `since` is one of
    /// its cursors.
    @Sendable func changes(_ request: SignedInRequest) async throws -> Response {
        var query = request.query
        let changes = OrderChangesRequest(
            since: query.text("since") ?? "", storeID: query.id("store_id", as: StoreID.self),
            limit: query.int("limit", in: 1...1000))
        try query.check()
        return JSONBody.forwarded(try await orders.forward(OrdersAPI.changes, changes, options: request.options))
    }

    @Sendable func list(_ request: SignedInRequest) async throws -> Response {
        var query = request.query
        let list = OrderListRequest(
            storeID: query.id("store_id", as: StoreID.self), statuses: query.choices("status", as: OrderStatus.self),
            fulfillment: query.choices("fulfillment", as: Fulfillment.self)?.first,
            courierID: query.id("courier_id", as: UserID.self), available: query.bool("available"),
            createdFrom: query.date("created_from"), createdTo: query.date("created_to"),
            dueFrom: query.date("due_from"), dueTo: query.date("due_to"), search: query.text("q"),
            sort: query.choices("sort", as: OrderSort.self)?.first, archived: query.bool("archived"),
            page: query.page())
        try query.check()
        return JSONBody.forwarded(try await orders.forward(OrdersAPI.listOrders, list, options: request.options))
    }

    @Sendable func get(_ request: SignedInRequest) async throws -> Response {
        JSONBody.forwarded(
            try await orders.forward(OrdersAPI.getOrder, try Self.ref(request), options: request.options),
            versioned: true)
    }

    @Sendable func update(_ request: SignedInRequest) async throws -> Response {
        let patch = try await request.patch(try request.id(as: OrderID.self), OrderDraft.self)
        return JSONBody.forwarded(
            try await orders.forward(OrdersAPI.updateOrder, patch, options: request.options), versioned: true)
    }

    /// Archives the order: a pending one is cancelled by it, so it is checked as a cancel is.
    @Sendable func archive(_ request: SignedInRequest) async throws -> Response {
        let ref = try Self.ref(request)
        _ = try await payments.call(PaymentsAPI.checkCancelRefund, ref, options: request.options)
        return JSONBody.forwarded(
            try await orders.forward(OrdersAPI.archiveOrder, ref, options: request.options), versioned: true)
    }

    @Sendable func perform(_ request: SignedInRequest) async throws -> Response {
        let id = try request.id(as: OrderID.self)
        guard let action = request.context.parameters.get("action").flatMap(OrderAction.init(rawValue:)) else {
            throw OrderlyError(
                .notFound, "no such action; actions are " + OrderAction.allCases.map(\.rawValue).joined(separator: ", ")
            )
        }
        let buffer = try await request.body()
        let details = buffer.readableBytes == 0 ? ActionBody() : try JSONBody.decode(ActionBody.self, from: buffer)
        // The customer following their order sees the first name of the courier who claims it.
        let courierName =
            action == .claim && request.principal.role == .courier
            ? try await identity.me(request.principal).name.split(separator: " ").first.map(String.init) : nil
        if action == .cancel {
            // A cancel refunds a customer's payments: only for a caller who may refund them (422).
            _ = try await payments.call(PaymentsAPI.checkCancelRefund, ResourceRef(id: id), options: request.options)
        }
        let perform = OrderActionRequest(
            id: id, action: action, reason: details.reason,
            expectedVersion: try request.request.expectedVersion() ?? details.expectedVersion,
            cashCollected: details.cashCollected, courierFirstName: courierName)
        return JSONBody.forwarded(
            try await orders.forward(OrdersAPI.performAction, perform, options: request.options), versioned: true)
    }

    @Sendable func history(_ request: SignedInRequest) async throws -> Response {
        let history = OrderHistoryRequest(id: try request.id(as: OrderID.self), page: try request.page())
        return JSONBody.forwarded(try await orders.forward(OrdersAPI.history, history, options: request.options))
    }

    @Sendable func items(_ request: SignedInRequest) async throws -> Response {
        JSONBody.forwarded(
            try await orders.forward(OrdersAPI.listItems, try Self.ref(request), options: request.options))
    }

    @Sendable func addItem(_ request: SignedInRequest) async throws -> Response {
        let item = try await request.decode(OrderItemDraft.self)
        return try await changeItems(request, .add, item: item, status: .created)
    }

    @Sendable func changeItem(_ request: SignedInRequest) async throws -> Response {
        let item = try await request.decode(OrderItemDraft.self)
        return try await changeItems(request, .update, item: item)
    }

    @Sendable func removeItem(_ request: SignedInRequest) async throws -> Response {
        try await changeItems(request, .remove)
    }

    @Sendable func earnings(_ request: SignedInRequest) async throws -> Response {
        var query = request.query
        let from = query.problems.required(query.date("from"), "from")
        let to = query.problems.required(query.date("to"), "to")
        let asked = query.text("tz")
        if let asked, !Store.isKnownTimeZone(asked) {
            query.problems.add("tz", "must be an IANA time zone such as Asia/Jerusalem")
        }
        guard let from, let to, query.problems.isEmpty else { throw query.problems.failure }
        // The days are the courier's own: the zone asked for, or the one on their profile.
        var zone = asked
        if zone == nil { zone = try await identity.me(request.principal).timeZone }
        return JSONBody.forwarded(
            try await orders.forward(
                OrdersAPI.earnings, EarningsRequest(from: from, to: to, timeZone: zone), options: request.options))
    }

    /// Adds, changes or removes a line of the order in the path; answers with the whole order.
    private func changeItems(
        _ request: SignedInRequest, _ kind: ItemChange.Kind, item: OrderItemDraft? = nil,
        status: HTTPResponse.Status = .ok
    ) async throws -> Response {
        let change = ItemChange(
            orderID: try request.id(as: OrderID.self), kind: kind,
            itemID: kind == .add ? nil : try request.id("item_id", as: OrderItemID.self), item: item,
            expectedVersion: try request.request.expectedVersion(),
            deviceStoreID: try await deviceStore(of: item, request))
        return JSONBody.forwarded(
            try await orders.forward(OrdersAPI.changeItems, change, options: request.options), status: status,
            versioned: true)
    }

    /// The store of the customer's device a line names, asked of the payments service as the
    /// caller; one they cannot see, or no id at all, is a 400 naming `device_id`. Nil when the
    /// line names none (or clears it with a blank).
    private func deviceStore(of item: OrderItemDraft?, _ request: SignedInRequest) async throws -> StoreID? {
        guard let text = item?.namedDeviceID else { return nil }
        let unknown = OrderlyError.invalidFields(["device_id": OrderItemDraft.deviceRule])
        guard let id = CustomerDeviceID(text) else { throw unknown }
        do {
            return try await payments.call(PaymentsAPI.getDevice, ResourceRef(id: id), options: request.options)
                .storeID
        } catch let error as OrderlyError where error.code == .notFound {
            throw unknown
        }
    }

    /// The order in the path.
    private static func ref(_ request: SignedInRequest) throws(OrderlyError) -> ResourceRef<OrderID> {
        ResourceRef(id: try request.id(as: OrderID.self))
    }
}

/// The optional body of an order action.
struct ActionBody: Decodable, Sendable {
    var reason: String?
    var expectedVersion: Int64?
    var cashCollected: Int64?

    enum CodingKeys: String, CodingKey {
        case reason
        case expectedVersion = "expected_version"
        case cashCollected = "cash_collected"
    }
}
