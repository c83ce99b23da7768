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

/// What a publish under a mark found.
public enum MarkedPublish: Sendable, Hashable {
    /// The events were appended and the mark moved to the batch's number; `previous` is the
    /// mark the stream had, at or past the one expected.
    case published(previous: Int64)
    /// The stream's mark is behind the one expected: it lost what was appended after `mark`.
    /// Nothing was appended.
    case behind(mark: Int64)
}

/// What a trim removed, and what it had to keep.
public struct StreamTrim: Sendable, Hashable {
    /// How many entries went.
    public var removed: Int
    /// The oldest entry left; nil when none is left or the stream has no follower.
    public var oldestKept: StreamID?
    /// The follower (consumer group) that still needs `oldestKept`.
    public var neededBy: String?

    public init(removed: Int, oldestKept: StreamID?, neededBy: String?) {
        self.removed = removed
        self.oldestKept = oldestKept
        self.neededBy = neededBy
    }
}
