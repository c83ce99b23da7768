import Contracts
import Domain
import Events
import Runtime

/// The gateway's identity events: the notifications service's copy of each user, who is where,
/// who is on duty and which language they read.
struct GatewayFollower: NotifyingFollower {
    static let producer = GatewayAPI.service
    static let effects: [String: @Sendable (DomainEvent) throws -> Notifier.Effect] = [
        GatewayAPI.Events.userCreated: record, GatewayAPI.Events.userUpdated: record,
    ]

    let notifier: Notifier

    private static func record(_ event: DomainEvent) throws -> Notifier.Effect {
        .record(try event.payload.decode(as: User.self))
    }
}
