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
