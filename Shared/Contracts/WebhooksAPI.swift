public import Domain
public import Foundation
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

    /// The event types an endpoint may subscribe to; each delivery's body is one of them.
    public static let eventTypes = [
        OrdersAPI.Events.created, OrdersAPI.Events.claimed, OrdersAPI.Events.statusChanged, OrdersAPI.Events.released,
        CatalogAPI.Events.stockLow, CatalogAPI.Events.stockOut, PaymentsAPI.Events.completed,
        PaymentsAPI.Events.refunded,
    ]
}

/// A store's endpoint for its events. `secret` is in the answer only when it is new (at
/// creation and rotation); deliveries are signed with it.
public struct Webhook: Codable, Sendable, Hashable {
    public var id: WebhookID
    public var storeID: StoreID
    public var url: String
    public var events: [String]
    public var active: Bool
    /// Why deliveries stopped, when the service turned the endpoint off.
    public var disabledReason: String?
    public var secret: String?
    public var version: Int64
    public var createdAt: Date
    public var updatedAt: Date

    public init(
        id: WebhookID, storeID: StoreID, url: String, events: [String], active: Bool, disabledReason: String?,
        secret: String?, version: Int64, createdAt: Date, updatedAt: Date
    ) {
        self.id = id
        self.storeID = storeID
        self.url = url
        self.events = events
        self.active = active
        self.disabledReason = disabledReason
        self.secret = secret
        self.version = version
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    enum CodingKeys: String, CodingKey {
        case id, url, events, active, secret, version
        case storeID = "store_id"
        case disabledReason = "disabled_reason"
        case createdAt = "created_at"
        case updatedAt = "updated_at"
    }
}

/// A new endpoint of `store_id`: an `https` (or `http`) URL, the event types it hears of
/// (at least one of `WebhooksAPI.eventTypes`), active unless said otherwise.
public struct WebhookDraft: Codable, Sendable, Hashable {
    public var storeID: StoreID?
    public var url: String?
    public var events: [String]?
    public var active: Bool?

    public init(storeID: StoreID?, url: String?, events: [String]?, active: Bool? = nil) {
        self.storeID = storeID
        self.url = url
        self.events = events
        self.active = active
    }

    enum CodingKeys: String, CodingKey {
        case url, events, active
        case storeID = "store_id"
    }
}

/// Changes to an endpoint (absent fields are unchanged); turning it on again clears
/// `disabled_reason`.
public struct WebhookChanges: Codable, Sendable, Hashable {
    public var url: String?
    public var events: [String]?
    public var active: Bool?

    public init(url: String? = nil, events: [String]? = nil, active: Bool? = nil) {
        self.url = url
        self.events = events
        self.active = active
    }
}

/// A store's endpoints, oldest first.
public struct WebhookListRequest: Codable, Sendable, Hashable {
    public var storeID: StoreID
    public var page: PageRequest

    public init(storeID: StoreID, page: PageRequest) {
        self.storeID = storeID
        self.page = page
    }
}

/// One event sent, or to be sent, to one endpoint, and how it went.
public struct WebhookDelivery: Codable, Sendable, Hashable {
    public enum Status: String, Codable, Sendable, Hashable, CaseIterable {
        /// Not answered with a 2xx yet; tried again at `next_attempt_at`.
        case pending
        case delivered
        /// Given up after a day of retries.
        case failed
    }

    public var id: WebhookDeliveryID
    public var webhookID: WebhookID
    public var eventID: String
    public var eventType: String
    public var status: Status
    public var attempts: Int
    public var lastStatusCode: Int?
    /// Why the last attempt failed without an answer (a timeout, a refused destination).
    public var lastError: String?
    public var lastAttemptAt: Date?
    public var nextAttemptAt: Date?
    public var deliveredAt: Date?
    public var createdAt: Date

    public init(
        id: WebhookDeliveryID, webhookID: WebhookID, eventID: String, eventType: String, status: Status, attempts: Int,
        lastStatusCode: Int?, lastError: String?, lastAttemptAt: Date?, nextAttemptAt: Date?, deliveredAt: Date?,
        createdAt: Date
    ) {
        self.id = id
        self.webhookID = webhookID
        self.eventID = eventID
        self.eventType = eventType
        self.status = status
        self.attempts = attempts
        self.lastStatusCode = lastStatusCode
        self.lastError = lastError
        self.lastAttemptAt = lastAttemptAt
        self.nextAttemptAt = nextAttemptAt
        self.deliveredAt = deliveredAt
        self.createdAt = createdAt
    }

    enum CodingKeys: String, CodingKey {
        case id, status, attempts
        case webhookID = "webhook_id"
        case eventID = "event_id"
        case eventType = "event_type"
        case lastStatusCode = "last_status_code"
        case lastError = "last_error"
        case lastAttemptAt = "last_attempt_at"
        case nextAttemptAt = "next_attempt_at"
        case deliveredAt = "delivered_at"
        case createdAt = "created_at"
    }
}

/// An endpoint's deliveries, newest first.
public struct WebhookDeliveryListRequest: Codable, Sendable, Hashable {
    public var webhookID: WebhookID
    public var page: PageRequest

    public init(webhookID: WebhookID, page: PageRequest) {
        self.webhookID = webhookID
        self.page = page
    }
}

/// One delivery of one endpoint.
public struct WebhookDeliveryRef: Codable, Sendable, Hashable {
    public var webhookID: WebhookID
    public var deliveryID: WebhookDeliveryID

    public init(webhookID: WebhookID, deliveryID: WebhookDeliveryID) {
        self.webhookID = webhookID
        self.deliveryID = deliveryID
    }
}

/// What a delivery's body is: the event, with the resource it carries as `data` (an order, an
/// order change `{order, change}`, a product, a payment, or `{payment, refund}`).
public struct WebhookEvent: Codable, Sendable, Hashable {
    public var id: String
    public var type: String
    public var createdAt: Date
    public var storeID: StoreID
    public var data: JSONValue

    public init(id: String, type: String, createdAt: Date, storeID: StoreID, data: JSONValue) {
        self.id = id
        self.type = type
        self.createdAt = createdAt
        self.storeID = storeID
        self.data = data
    }

    enum CodingKeys: String, CodingKey {
        case id, type, data
        case createdAt = "created_at"
        case storeID = "store_id"
    }
}
