public import Domain
public import Foundation
import WireContract

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
