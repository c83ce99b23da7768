/// What a publish under a mark found.
public enum MarkedPublish: Sendable, Hashable {
    /// The events were appended and the mark moved to the batch's number; `previous` is the
    /// mark the stream had, at or past the one expected.
    case published(previous: Int64)
    /// The stream's mark is behind the one expected: it lost what was appended after `mark`.
    /// Nothing was appended.
    case behind(mark: Int64)
}
