import Contracts
import Domain
import Events
import Runtime

/// A follower of one stream whose events the notifications service turns into notifications
/// (`Notifier`): each followed type's effect, the events of one read applied together.
protocol NotifyingFollower: EventFollower {
    /// What each event type it follows does.
    static var effects: [String: @Sendable (DomainEvent) throws -> Notifier.Effect] { get }
    var notifier: Notifier { get }
}

extension NotifyingFollower {
    static var types: [String] { effects.keys.sorted() }
    static var appliesBatches: Bool { true }

    func apply(_ event: DomainEvent) async throws { try await notifier.apply([event]) }
    func apply(_ events: [DomainEvent]) async throws { try await notifier.apply(events) }
}
