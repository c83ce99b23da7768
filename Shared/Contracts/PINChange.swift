public import Domain

/// A user's new PIN for the store's shared tills: 4 to 6 digits.
public struct PINChange: Codable, Sendable, Hashable {
    public var pin: String?

    public init(pin: String? = nil) { self.pin = pin }

    /// The PIN, 400 naming `pin` unless it is 4 to 6 digits.
    public func validated() throws(OrderlyError) -> String {
        guard let pin, Till.isPIN(pin) else { throw OrderlyError.invalidFields(["pin": "must be 4 to 6 digits"]) }
        return pin
    }
}
