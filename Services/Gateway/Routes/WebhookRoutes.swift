import Contracts
import Domain
import Hummingbird
import Wire

/// `/v1/stores/{store_id}/webhooks` and `/v1/webhooks…`, forwarded to the notifications service.
struct WebhookRoutes: Sendable {
    let notifications: any WireCaller

    func add(to v1: RouterGroup<GatewayContext>) {
        v1.post("stores/:id/webhooks", use: signedIn(create))
            .get("stores/:id/webhooks", use: signedIn(list))
            .get("webhooks/:id", use: signedIn(get))
            .patch("webhooks/:id", use: signedIn(update))
            .delete("webhooks/:id", use: signedIn(delete))
            .post("webhooks/:id/rotate-secret", use: signedIn(rotateSecret))
            .get("webhooks/:id/deliveries", use: signedIn(deliveries))
            .post("webhooks/:id/deliveries/:delivery_id/redeliver", use: signedIn(redeliver))
            .post("webhooks/:id/test", use: signedIn(test))
    }

    @Sendable func create(_ request: SignedInRequest) async throws -> Response {
        let store = try request.id(as: StoreID.self)
        var draft = try await request.decode(WebhookDraft.self)
        draft.storeID = store
        let webhook = try await notifications.call(WebhooksAPI.create, draft, options: request.options)
        return try JSONBody.response(webhook, status: .created, version: webhook.version)
    }

    @Sendable func list(_ request: SignedInRequest) async throws -> Response {
        let list = WebhookListRequest(storeID: try request.id(as: StoreID.self), page: try request.page())
        return try JSONBody.response(try await notifications.call(WebhooksAPI.list, list, options: request.options))
    }

    @Sendable func get(_ request: SignedInRequest) async throws -> Response {
        let webhook = try await notifications.call(WebhooksAPI.get, try Self.ref(request), options: request.options)
        return try JSONBody.response(webhook, version: webhook.version)
    }

    @Sendable func update(_ request: SignedInRequest) async throws -> Response {
        let patch = try await request.patch(try request.id(as: WebhookID.self), WebhookChanges.self)
        let webhook = try await notifications.call(WebhooksAPI.update, patch, options: request.options)
        return try JSONBody.response(webhook, version: webhook.version)
    }

    @Sendable func delete(_ request: SignedInRequest) async throws -> Response {
        _ = try await notifications.call(WebhooksAPI.delete, try Self.ref(request), options: request.options)
        return Response(status: .noContent)
    }

    @Sendable func rotateSecret(_ request: SignedInRequest) async throws -> Response {
        let webhook = try await notifications.call(
            WebhooksAPI.rotateSecret, try Self.ref(request), options: request.options)
        return try JSONBody.response(webhook, version: webhook.version)
    }

    @Sendable func deliveries(_ request: SignedInRequest) async throws -> Response {
        let list = WebhookDeliveryListRequest(webhookID: try request.id(as: WebhookID.self), page: try request.page())
        return try JSONBody.response(
            try await notifications.call(WebhooksAPI.deliveries, list, options: request.options))
    }

    @Sendable func redeliver(_ request: SignedInRequest) async throws -> Response {
        let delivery = WebhookDeliveryRef(
            webhookID: try request.id(as: WebhookID.self),
            deliveryID: try request.id("delivery_id", as: WebhookDeliveryID.self))
        return try JSONBody.response(
            try await notifications.call(WebhooksAPI.redeliver, delivery, options: request.options), status: .accepted)
    }

    @Sendable func test(_ request: SignedInRequest) async throws -> Response {
        try JSONBody.response(
            try await notifications.call(WebhooksAPI.test, try Self.ref(request), options: request.options),
            status: .accepted)
    }

    /// The webhook in the path.
    private static func ref(_ request: SignedInRequest) throws(OrderlyError) -> ResourceRef<WebhookID> {
        ResourceRef(id: try request.id(as: WebhookID.self))
    }
}
