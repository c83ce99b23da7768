import Contracts
import Domain
import HTTPTypes
import Hummingbird
import NIOCore
import Wire

/// `/v1/orders…` and `/v1/couriers/me/earnings`, forwarded to the orders service, whose JSON is
/// passed on as it wrote it. A courier's calls carry whether they are on duty now, which the
/// gateway owns and the orders service decides by.
struct OrderRoutes: Sendable {
    let orders: any WireCaller
    let identity: UsersHandlers

    func add(to v1: RouterGroup<GatewayContext>) {
        v1.post("orders") { request, context in
            let options = try await options(request, context)
            let draft = try await JSONBody.collect(request, context: context)
            return JSONBody.forwarded(
                try await orders.forward(OrdersAPI.createOrder, json: draft, options: options), status: .created,
                versioned: true)
        }
        v1.get("orders/changes") { request, context in
            let options = try await options(request, context)
            var query = QueryReader(request)
            // The orders service, which owns the feed, decides whether `since` is one of its cursors.
            let changes = OrderChangesRequest(
                since: query.text("since") ?? "", storeID: query.id("store_id", as: StoreID.self),
                limit: query.int("limit", in: 1...1000))
            try query.check()
            return JSONBody.forwarded(try await orders.forward(OrdersAPI.changes, changes, options: options))
        }
        v1.get("orders") { request, context in
            let options = try await options(request, context)
            var query = QueryReader(request)
            let list = OrderListRequest(
                storeID: query.id("store_id", as: StoreID.self),
                statuses: query.choices("status", as: OrderStatus.self),
                fulfillment: query.choices("fulfillment", as: Fulfillment.self)?.first,
                courierID: query.id("courier_id", as: UserID.self), available: query.bool("available"),
                createdFrom: query.date("created_from"), createdTo: query.date("created_to"),
                dueFrom: query.date("due_from"), dueTo: query.date("due_to"), search: query.text("q"),
                sort: query.choices("sort", as: OrderSort.self)?.first, page: query.page())
            try query.check()
            return JSONBody.forwarded(try await orders.forward(OrdersAPI.listOrders, list, options: options))
        }
        v1.get("orders/:id") { request, context in
            let options = try await options(request, context)
            let id = try request.pathID("id", context, as: OrderID.self)
            return JSONBody.forwarded(
                try await orders.forward(OrdersAPI.getOrder, ResourceRef(id: id), options: options), versioned: true)
        }
        v1.patch("orders/:id") { request, context in
            let options = try await options(request, context)
            let id = try request.pathID("id", context, as: OrderID.self)
            let patch = try await JSONBody.patch(request, context: context, id: id, OrderDraft.self)
            return JSONBody.forwarded(
                try await orders.forward(OrdersAPI.updateOrder, patch, options: options), versioned: true)
        }
        v1.post("orders/:id/actions/:action") { request, context in
            let options = try await options(request, context)
            let id = try request.pathID("id", context, as: OrderID.self)
            guard let action = context.parameters.get("action").flatMap(OrderAction.init(rawValue:)) else {
                throw OrderlyError(
                    .notFound,
                    "no such action; actions are " + OrderAction.allCases.map(\.rawValue).joined(separator: ", "))
            }
            let buffer = try await JSONBody.collect(request, context: context)
            let details = buffer.readableBytes == 0 ? ActionBody() : try JSONBody.decode(ActionBody.self, from: buffer)
            let perform = OrderActionRequest(
                id: id, action: action, reason: details.reason,
                expectedVersion: try request.expectedVersion() ?? details.expectedVersion)
            return JSONBody.forwarded(
                try await orders.forward(OrdersAPI.performAction, perform, options: options), versioned: true)
        }
        v1.get("orders/:id/history") { request, context in
            let options = try await options(request, context)
            let id = try request.pathID("id", context, as: OrderID.self)
            let history = OrderHistoryRequest(id: id, page: try QueryReader.page(request))
            return JSONBody.forwarded(try await orders.forward(OrdersAPI.history, history, options: options))
        }
        v1.get("orders/:id/items") { request, context in
            let options = try await options(request, context)
            let id = try request.pathID("id", context, as: OrderID.self)
            return JSONBody.forwarded(
                try await orders.forward(OrdersAPI.listItems, ResourceRef(id: id), options: options))
        }
        v1.post("orders/:id/items") { request, context in
            let item = try await JSONBody.decode(OrderItemDraft.self, from: request, context: context)
            return try await changeItems(request, context, .add, item: item, status: .created)
        }
        v1.patch("orders/:id/items/:item_id") { request, context in
            let item = try await JSONBody.decode(OrderItemDraft.self, from: request, context: context)
            return try await changeItems(request, context, .update, item: item)
        }
        v1.delete("orders/:id/items/:item_id") { request, context in
            try await changeItems(request, context, .remove)
        }
        v1.get("couriers/me/earnings") { request, context in
            let options = try await options(request, context)
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

    /// The call options of a signed-in request; a courier's principal says whether they are on
    /// duty now.
    private func options(_ request: Request, _ context: GatewayContext) async throws -> WireCallOptions {
        var options = try context.callOptions(request)
        if var principal = options.principal, principal.role == .courier {
            principal.onDuty = try await identity.me(principal).onDuty
            options.principal = principal
        }
        return options
    }

    /// Adds, changes or removes a line of the order in the path; answers with the whole order.
    private func changeItems(
        _ request: Request, _ context: GatewayContext, _ kind: ItemChange.Kind, item: OrderItemDraft? = nil,
        status: HTTPResponse.Status = .ok
    ) async throws -> Response {
        let options = try await options(request, context)
        let change = ItemChange(
            orderID: try request.pathID("id", context, as: OrderID.self), kind: kind,
            itemID: kind == .add ? nil : try request.pathID("item_id", context, as: OrderItemID.self), item: item,
            expectedVersion: try request.expectedVersion())
        return JSONBody.forwarded(
            try await orders.forward(OrdersAPI.changeItems, change, options: options), status: status, versioned: true)
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
