/// Where a service's outbox relay puts its events, for the other services to follow: a stream
/// per producing service (Redis's, through `EventPublisher`). The relay publishes under a mark,
/// the number of the last outbox row published, kept beside the stream, so that a stream that
/// lost what it had acknowledged is found out and given the events again.
public protocol EventPublishing: Sendable {
    /// Appends the events, all or none, if the stream still has everything published up to
    /// `expected`, and marks `last` as published; or finds that the stream is behind. An empty
    /// batch with `last == expected` only checks.
    func publish(_ events: [DomainEvent], through last: Int64, expecting expected: Int64) async throws
        -> MarkedPublish

    /// Removes the entries every follower has acknowledged, never more.
    func trimAcknowledged() async throws -> StreamTrim
}
