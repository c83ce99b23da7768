import Contracts
import Domain
import Hummingbird
import Wire

/// `/v1/stores/{store_id}/webhooks` and `/v1/webhooks…`, forwarded to the notifications service.
struct WebhookRoutes: Sendable {
    let notifications: any WireCaller

    func add(to v1: RouterGroup<GatewayContext>) {
        v1.post("stores/:id/webhooks") { request, context in
            let options = try context.callOptions(request)
            let store = try request.pathID("id", context, as: StoreID.self)
            var draft = try await JSONBody.decode(WebhookDraft.self, from: request, context: context)
            draft.storeID = store
            let webhook = try await notifications.call(WebhooksAPI.create, draft, options: options)
            return try JSONBody.response(webhook, status: .created, version: webhook.version)
        }
        v1.get("stores/:id/webhooks") { request, context in
            let options = try context.callOptions(request)
            let store = try request.pathID("id", context, as: StoreID.self)
            let list = WebhookListRequest(storeID: store, page: try QueryReader.page(request))
            return try JSONBody.response(try await notifications.call(WebhooksAPI.list, list, options: options))
        }
        v1.get("webhooks/:id") { request, context in
            let options = try context.callOptions(request)
            let id = try request.pathID("id", context, as: WebhookID.self)
            let webhook = try await notifications.call(WebhooksAPI.get, ResourceRef(id: id), options: options)
            return try JSONBody.response(webhook, version: webhook.version)
        }
        v1.patch("webhooks/:id") { request, context in
            let options = try context.callOptions(request)
            let id = try request.pathID("id", context, as: WebhookID.self)
            let patch = try await JSONBody.patch(request, context: context, id: id, WebhookChanges.self)
            let webhook = try await notifications.call(WebhooksAPI.update, patch, options: options)
            return try JSONBody.response(webhook, version: webhook.version)
        }
        v1.delete("webhooks/:id") { request, context in
            let options = try context.callOptions(request)
            let id = try request.pathID("id", context, as: WebhookID.self)
            _ = try await notifications.call(WebhooksAPI.delete, ResourceRef(id: id), options: options)
            return Response(status: .noContent)
        }
        v1.post("webhooks/:id/rotate-secret") { request, context in
            let options = try context.callOptions(request)
            let id = try request.pathID("id", context, as: WebhookID.self)
            let webhook = try await notifications.call(WebhooksAPI.rotateSecret, ResourceRef(id: id), options: options)
            return try JSONBody.response(webhook, version: webhook.version)
        }
        v1.get("webhooks/:id/deliveries") { request, context in
            let options = try context.callOptions(request)
            let id = try request.pathID("id", context, as: WebhookID.self)
            let list = WebhookDeliveryListRequest(webhookID: id, page: try QueryReader.page(request))
            return try JSONBody.response(try await notifications.call(WebhooksAPI.deliveries, list, options: options))
        }
        v1.post("webhooks/:id/deliveries/:delivery_id/redeliver") { request, context in
            let options = try context.callOptions(request)
            let ref = WebhookDeliveryRef(
                webhookID: try request.pathID("id", context, as: WebhookID.self),
                deliveryID: try request.pathID("delivery_id", context, as: WebhookDeliveryID.self))
            return try JSONBody.response(
                try await notifications.call(WebhooksAPI.redeliver, ref, options: options), status: .accepted)
        }
    }
}
