public import Domain

/// A sign-in on a shared till: who (`user_id`, picked from the till's list of the store's
/// people) and their PIN.
public struct PINSignIn: Codable, Sendable, Hashable {
    public var userID: UserID?
    public var pin: String?

    public init(userID: UserID? = nil, pin: String? = nil) {
        self.userID = userID
        self.pin = pin
    }

    enum CodingKeys: String, CodingKey {
        case pin
        case userID = "user_id"
    }

    /// Both fields, each named when missing or malformed.
    public func validated() throws(OrderlyError) -> (user: UserID, pin: String) {
        var problems = FieldProblems()
        if userID == nil { problems.add("user_id", "is required") }
        if pin.map(Till.isPIN) != true { problems.add("pin", "must be 4 to 6 digits") }
        try problems.check()
        guard let userID, let pin else { throw OrderlyError.invalidFields(["pin": "must be 4 to 6 digits"]) }
        return (userID, pin)
    }
}
