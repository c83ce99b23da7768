import Contracts
import Domain
import Events
import Runtime

/// The gateway's identity events: the notifications service's copy of each user, who is where,
/// who is on duty and which language they read; an approved application, to the account it made
/// (which `user.created` has recorded before, in the same stream); and a closed account, whose
/// notifications, devices and marks are erased (its copy is the erased account, `user.updated`
/// just before).
struct RecipientsFollower: NotifyingFollower {
    static let producer = GatewayAPI.service
    static let effects: [String: @Sendable (DomainEvent) throws -> Notifier.Effect] = [
        GatewayAPI.Events.userCreated: record, GatewayAPI.Events.userUpdated: record,
        GatewayAPI.Events.userErased: { .erase(try $0.payload.decode(as: User.self).id) },
        GatewayAPI.Events.applicationApproved: { event in
            let application = try event.payload.decode(as: JoinApplication.self)
            guard let user = application.userID else { throw ApplicationWithoutAccount() }
            var data = ["application_id": application.id.description]
            data["store_id"] = application.storeID?.description
            return .notify(
                data,
                [
                    (
                        Audience(person: user),
                        Telling("application.approved.title", "application.approved.\(application.kind.rawValue)", [])
                    )
                ])
        },
    ]

    /// An approved application's event that names no account: nothing to tell anyone.
    struct ApplicationWithoutAccount: Error {}

    let notifier: Notifier

    private static func record(_ event: DomainEvent) throws -> Notifier.Effect {
        .record(try event.payload.decode(as: User.self))
    }
}
