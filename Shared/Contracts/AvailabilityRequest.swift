public import Domain

/// The body of `PUT /v1/couriers/me/availability`.
public struct AvailabilityRequest: Codable, Sendable, Hashable {
    public var onDuty: Bool?

    public init(onDuty: Bool? = nil) {
        self.onDuty = onDuty
    }

    enum CodingKeys: String, CodingKey { case onDuty = "on_duty" }

    /// Whether the courier goes on duty, checked: `on_duty` is required.
    public func validated() throws(OrderlyError) -> Bool {
        var problems = FieldProblems()
        let onDuty = problems.required(onDuty, "on_duty")
        try problems.check()
        guard let onDuty else { throw problems.failure }
        return onDuty
    }
}
