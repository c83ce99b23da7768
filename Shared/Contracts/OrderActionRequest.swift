public import Domain
import Foundation
import WireContract

/// `POST /v1/orders/{id}/actions/{action}`; `cancel` needs a `reason`.
public struct OrderActionRequest: Codable, Sendable, Hashable {
    public var id: OrderID
    public var action: OrderAction
    public var reason: String?
    public var expectedVersion: Int64?
    /// On `deliver`: the cash the courier collected for a cash-on-delivery order.
    public var cashCollected: Int64?
    /// On a courier's `claim`: their first name, which the gateway knows, for the customer.
    public var courierFirstName: String?

    public init(
        id: OrderID, action: OrderAction, reason: String? = nil, expectedVersion: Int64? = nil,
        cashCollected: Int64? = nil, courierFirstName: String? = nil
    ) {
        self.id = id
        self.action = action
        self.reason = reason
        self.expectedVersion = expectedVersion
        self.cashCollected = cashCollected
        self.courierFirstName = courierFirstName
    }

    enum CodingKeys: String, CodingKey {
        case id, action, reason
        case expectedVersion = "expected_version"
        case cashCollected = "cash_collected"
        case courierFirstName = "courier_first_name"
    }

    /// The action's own fields, checked: the reason (required to cancel, at most 500
    /// characters, trimmed) and the cash collected (on `deliver` only).
    public func validated() throws(OrderlyError) -> (reason: String?, cashCollected: Int64?) {
        var problems = FieldProblems()
        let reason = problems.optionalText(reason, "reason", maximumLength: 500, required: action == .cancel)
        let cash = problems.integer(cashCollected, "cash_collected", in: 0...Payment.maximumAmount, required: false)
        if cash != nil, action != .deliver { problems.add("cash_collected", "is only for deliver") }
        try problems.check()
        return (reason, cash)
    }
}
