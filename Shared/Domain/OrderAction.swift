/// What someone can do to an order (`POST /v1/orders/{id}/actions/{action}`).
public enum OrderAction: String, Hashable, Sendable, Codable, CaseIterable {
    case accept
    case startPreparing = "start_preparing"
    case startRepair = "start_repair"
    case awaitParts = "await_parts"
    case markReady = "mark_ready"
    case markCollected = "mark_collected"
    case despatch
    case cancel
    case claim
    case release
    case pickUp = "pick_up"
    case deliver
}

/// The change an allowed action makes: the new status and who carries the order.
public struct OrderTransition: Hashable, Sendable {
    public var from: OrderStatus
    public var to: OrderStatus
    /// The courier after the action (nil when unclaimed).
    public var courierID: UserID?
}

/// Why an action was refused.
public enum OrderActionRefusal: Error, Hashable, Sendable {
    /// This caller may never do this to this order (403).
    case notPermitted(OrderAction, Role)
    /// Not from this state (422); `allowed` lists what this caller can do now.
    case illegal(OrderAction, OrderStatus, allowed: [OrderAction])
    /// A courier off duty tried to claim (422).
    case offDuty
    /// A courier tried to claim an order another courier claimed first (409).
    case alreadyClaimed
    /// The caller may not see the order (404, as if it did not exist).
    case unseen(OrderID)
    /// A courier already carries `OrderPool.maximumCarried` orders (422).
    case carryingEnough
    /// A courier released `OrderPool.maximumReleasesPerDay` orders in the last day (422).
    case releasedEnough
    /// A card order not paid yet cannot be accepted (422).
    case paymentRequired

    /// The error a service answers with.
    public var error: OrderlyError {
        switch self {
        case .notPermitted(let action, let role):
            return OrderlyError(
                .permissionDenied, "\(ErrorTexts.withArticle(role.rawValue)) cannot \(action.rawValue) this order")
        case .illegal(let action, let status, let allowed):
            return OrderlyError(
                .illegalTransition, "an order that is \(status.rawValue) cannot \(action.rawValue)",
                details: ["allowed_actions": .array(allowed.map { .string($0.rawValue) })])
        case .offDuty:
            return OrderlyError(
                .offDuty, "go on duty first: PUT /v1/couriers/me/availability")
        case .alreadyClaimed:
            return OrderlyError(.alreadyClaimed, "another courier claimed this order first")
        case .unseen(let id):
            return OrderlyError(.notFound, "no order \(id)")
        case .carryingEnough:
            return OrderlyError(
                .tooManyClaims,
                "a courier carries at most \(OrderPool.maximumCarried) orders at once: deliver one first")
        case .releasedEnough:
            return OrderlyError(
                .tooManyReleases,
                "a courier releases at most \(OrderPool.maximumReleasesPerDay) orders a day")
        case .paymentRequired:
            return OrderlyError(
                .paymentRequired, "the customer has not paid for this card order yet")
        }
    }
}
