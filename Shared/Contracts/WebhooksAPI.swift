public import Domain
import Foundation
public import WireContract

/// The notifications service's webhooks: a store's endpoints, told of its events by signed
/// POSTs, retried until they answer.
public enum WebhooksAPI {
    public static let create = WireMethod<WebhookDraft, Webhook>("webhooks.create", safeToRetry: false)
    public static let list = WireMethod<WebhookListRequest, Page<Webhook>>("webhooks.list", safeToRetry: true)
    public static let get = WireMethod<ResourceRef<WebhookID>, Webhook>("webhooks.get", safeToRetry: true)
    public static let update = WireMethod<Patch<WebhookID, WebhookChanges>, Webhook>(
        "webhooks.update", safeToRetry: false)
    public static let delete = WireMethod<ResourceRef<WebhookID>, Webhook>("webhooks.delete", safeToRetry: false)
    /// A new signing secret, shown in the answer once; the old one stops at once.
    public static let rotateSecret = WireMethod<ResourceRef<WebhookID>, Webhook>(
        "webhooks.rotate_secret", safeToRetry: false)
    public static let deliveries = WireMethod<WebhookDeliveryListRequest, Page<WebhookDelivery>>(
        "webhooks.deliveries", safeToRetry: true)
    /// Sends a delivery again now, with a new day of retries.
    public static let redeliver = WireMethod<WebhookDeliveryRef, WebhookDelivery>(
        "webhooks.redeliver", safeToRetry: true)
    /// Sends the endpoint a `webhook.test` event now, signed like any other: a way to check a
    /// receiver without waiting for an order.
    public static let test = WireMethod<ResourceRef<WebhookID>, WebhookDelivery>("webhooks.test", safeToRetry: false)

    /// The type of the event `test` sends; no endpoint subscribes to it.
    public static let testEventType = "webhook.test"

    /// The event types an endpoint may subscribe to; each delivery's body is one of them.
    public static let eventTypes = [
        OrdersAPI.Events.created, OrdersAPI.Events.claimed, OrdersAPI.Events.statusChanged, OrdersAPI.Events.released,
        CatalogAPI.Events.stockLow, CatalogAPI.Events.stockOut, PaymentsAPI.Events.completed,
        PaymentsAPI.Events.refunded,
    ]
}
