/// How many items a whole list holds, for a client that asked (`count=true`): exact up to
/// `bound`. Counting stops there, so a longer list answers `bound` marked `estimated`: more than
/// that many, shown as "10,000+". Counting is a read of the list's index, never of its documents.
public struct ListTotal: Sendable, Hashable {
    public var count: Int
    public var estimated: Bool

    /// The most items a count reads.
    public static let bound = 10_000

    /// The total of a count that read `counted` items (at most `bound + 1`).
    public init(counted: Int) {
        self.init(count: min(counted, Self.bound), estimated: counted > Self.bound)
    }

    public init(count: Int, estimated: Bool) {
        self.count = count
        self.estimated = estimated
    }

    /// The total of two disjoint lists read as one.
    public static func + (first: ListTotal, second: ListTotal) -> ListTotal {
        ListTotal(counted: first.estimated || second.estimated ? Self.bound + 1 : first.count + second.count)
    }
}
