/// A remote method with its request and response types: the contract between a service and
/// its callers, shared by both sides.
public struct WireMethod<Request: Codable & Sendable, Response: Codable & Sendable>: Sendable {
    /// The method name on the wire, `service.verb` (`orders.create`).
    public let name: String
    /// Whether calling twice is harmless (a read), so the client may retry after a failure.
    /// Writes become retryable when the call carries an idempotency key.
    public let isSafeToRetry: Bool

    public init(_ name: String, safeToRetry: Bool) {
        self.name = name
        self.isSafeToRetry = safeToRetry
    }
}

/// A body with no fields, for methods that take or return nothing.
public struct WireEmpty: Codable, Sendable, Hashable {
    public init() {}
}
