public import Domain

/// A shared till to register: its name as the store's people know it ("Front counter").
public struct TillDraft: Codable, Sendable, Hashable {
    public var name: String?

    public init(name: String? = nil) { self.name = name }

    /// The name, required (at most 100 characters), 400 naming it otherwise.
    public func validated() throws(OrderlyError) -> String {
        var problems = FieldProblems()
        let name = problems.text(name, "name", maximumLength: 100)
        try problems.check()
        return name
    }
}
