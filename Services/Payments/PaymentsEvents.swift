import Contracts
import Domain
import Events
import JSON
import Redis
import Runtime
import ServiceLifecycle

/// What the payments service publishes on `orderly:events:payments`: one event per status a
/// payment reaches in its lifecycle (`payment.created` when it is rung up, then
/// `payment.confirmed` … `payment.expired`) with the payment as payload, `payment.refunded` with
/// the payment and the refund, `shift.clocked_in`/`clocked_out` with the shift, and
/// `card.linked` with the card and its customer. What it
/// follows is `StaffRosterFollower`'s (the staff roster) and `LedgerFollower`'s (its own
/// completions and refunds, for the statistics).
enum PaymentsEvents {
    static func reached(_ payment: Payment) throws -> DomainEvent {
        DomainEvent(
            type: PaymentsAPI.Events.reached(payment.status), storeID: payment.storeID,
            aggregateID: payment.id.description, occurredAt: payment.updatedAt,
            payload: try EventPayload(encoding: payment))
    }

    /// `payment.refunded`: the payment after the refund, and the refund.
    static func refunded(_ payment: Payment, _ refund: Refund) throws -> DomainEvent {
        DomainEvent(
            type: PaymentsAPI.Events.refunded, storeID: payment.storeID, aggregateID: payment.id.description,
            occurredAt: refund.createdAt,
            payload: try EventPayload(encoding: PaymentRefunded(payment: payment, refund: refund)))
    }

    /// `card.linked`: the card and its customer.
    static func cardLinked(_ card: Card, to customer: Customer) throws -> DomainEvent {
        DomainEvent(
            type: PaymentsAPI.Events.cardLinked, storeID: card.storeID, aggregateID: card.id.description,
            occurredAt: card.updatedAt, payload: try EventPayload(encoding: CardLinked(card: card, customer: customer)))
    }

    /// `shift.clocked_in` or `shift.clocked_out`, with the shift.
    static func shift(_ type: String, _ shift: Shift) throws -> DomainEvent {
        DomainEvent(
            type: type, storeID: shift.storeID, aggregateID: shift.id.description,
            occurredAt: shift.clockedOutAt ?? shift.clockedInAt, payload: try EventPayload(encoding: shift))
    }
}
