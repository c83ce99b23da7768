public import Domain
public import Foundation
public import JSON

/// A fact a service announces to the others: `order.created`, `store.updated`, …
///
/// `id` is the deduplication key consumers record in their inbox; `payload` is the event's own
/// JSON text; `trace` is the W3C traceparent of the request that caused it.
public struct DomainEvent: Hashable, Sendable {
    public var id: UUID
    public var type: String
    public var storeID: StoreID?
    public var aggregateID: String
    public var occurredAt: Date
    public var payload: EventPayload
    public var trace: String?

    public init(
        id: UUID = .timeOrdered(), type: String, storeID: StoreID?, aggregateID: String, occurredAt: Date = Date(),
        payload: EventPayload, trace: String? = nil
    ) {
        self.id = id
        self.type = type
        self.storeID = storeID
        self.aggregateID = aggregateID
        self.occurredAt = occurredAt
        self.payload = payload
        self.trace = trace
    }
}
