import Contracts
import Domain
import JSON
import Redis
import Runtime
import ServiceLifecycle

/// The payments service's events: what it publishes, `payment.completed` with the payment as
/// payload, and what it consumes: no other service's events so far.
enum PaymentsEvents {
    static func completed(_ payment: Payment) throws -> DomainEvent {
        DomainEvent(
            type: PaymentsAPI.Events.completed, storeID: payment.storeID, aggregateID: payment.id.description,
            occurredAt: payment.completedAt ?? payment.createdAt, payload: try EventPayload(encoding: payment))
    }

    /// The consumers the process runs beside its Wire server: none, as payments react to no
    /// other service's events yet.
    static func consumers(_ environment: ServiceEnvironment) -> [any Service] { [] }
}
