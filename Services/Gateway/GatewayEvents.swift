import Contracts
import Domain
import Events
import JSON

/// What the gateway publishes on `orderly:events:gateway`: `user.created`, `user.updated` and
/// `user.erased` with the user as payload. It follows no stream; it listens to the notifications service's
/// wake-ups on `orderly:wake`, which release the long-polls and streams waiting for those users
/// (`WakeHub`), and to other replicas' word of ended sessions (`Sessions`).
enum GatewayEvents {
    static func userCreated(_ user: User) throws -> DomainEvent { try event(GatewayAPI.Events.userCreated, user) }

    static func userUpdated(_ user: User) throws -> DomainEvent { try event(GatewayAPI.Events.userUpdated, user) }

    /// A closed account, as left: the other services erase what they hold of the person.
    static func userErased(_ user: User) throws -> DomainEvent { try event(GatewayAPI.Events.userErased, user) }

    static func applicationApproved(_ application: JoinApplication) throws -> DomainEvent {
        DomainEvent(
            type: GatewayAPI.Events.applicationApproved, storeID: application.storeID,
            aggregateID: application.id.description, occurredAt: application.updatedAt,
            payload: try EventPayload(encoding: application))
    }

    private static func event(_ type: String, _ user: User) throws -> DomainEvent {
        DomainEvent(
            type: type, storeID: user.storeID, aggregateID: user.id.description, occurredAt: user.updatedAt,
            payload: try EventPayload(encoding: user))
    }
}
