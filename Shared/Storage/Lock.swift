/// A lock a transaction holds until it ends (`Transaction.lock`), named `<service>.<what>:<key>`.
/// Every lock is built by a factory of a `Lock+<Service>.swift` file (`Lock.product(id)`), so a name
/// is spelled once and two writers that must exclude each other cannot drift apart by a typo
/// (`deploy/local/check-map.py` refuses `Lock(` anywhere else).
public struct Lock: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let name: String

    /// The lock named `scope:key`.
    public init(_ scope: String, _ key: some CustomStringConvertible) {
        self.name = "\(scope):\(key)"
    }

    public var description: String { name }

    public static func < (lhs: Lock, rhs: Lock) -> Bool { lhs.name < rhs.name }
}
