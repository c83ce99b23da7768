import Contracts
import Domain
import Events
import JSON

/// What the orders service publishes on `orderly:events:orders`: `order.created` with the order,
/// the others (`order.updated`, `order.status_changed`, `order.claimed`, `order.released`) with an
/// `OrderChange`. What it follows is `StoreDirectoryFollower`'s and `PaidAmountsFollower`'s.
enum OrdersEvents {
    static func created(_ order: Order, document: String) -> DomainEvent {
        DomainEvent(
            type: OrdersAPI.Events.created, storeID: order.storeID, aggregateID: order.id.description,
            occurredAt: order.createdAt, payload: EventPayload(encodedJSON: document))
    }

    /// The event of a change: `type` is one of `OrdersAPI.Events`.
    static func changed(_ type: String, _ change: OrderChange) throws -> DomainEvent {
        DomainEvent(
            type: type, storeID: change.order.storeID, aggregateID: change.order.id.description,
            occurredAt: change.order.updatedAt, payload: try EventPayload(encoding: change))
    }
}
