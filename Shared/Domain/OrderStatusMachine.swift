/// What someone can do to an order (`POST /v1/orders/{id}/actions/{action}`).
public enum OrderAction: String, Hashable, Sendable, Codable, CaseIterable {
    case accept
    case startPreparing = "start_preparing"
    case markReady = "mark_ready"
    case markCollected = "mark_collected"
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

    /// The error a service answers with.
    public var error: OrderlyError {
        switch self {
        case .notPermitted(let action, let role):
            return OrderlyError(.permissionDenied, "a \(role.rawValue) cannot \(action.rawValue) this order")
        case .illegal(let action, let status, let allowed):
            return OrderlyError(
                .failedPrecondition, "an order that is \(status.rawValue) cannot \(action.rawValue)",
                reason: "illegal_transition",
                details: ["allowed_actions": .array(allowed.map { .string($0.rawValue) })])
        }
    }
}

/// The order status machine of DESIGN §6, for the services and for the apps' offline buttons.
///
/// `pending → accepted → preparing → ready → out_for_delivery → delivered`; `ready → collected`
/// for pickups; `cancelled` from pending, accepted, preparing or ready. The store's users
/// accept, prepare, mark ready, mark collected and cancel; a courier claims an unclaimed open
/// delivery (accepted, preparing or ready), releases it before pickup, picks it up when ready
/// and delivers it; a customer cancels their own order while it is pending; an admin may make
/// any legal transition (claiming excepted: only a courier carries an order).
extension Order {
    /// The statuses each action starts from, and where it leads (nil: the status stays).
    static func path(of action: OrderAction) -> (from: Set<OrderStatus>, to: OrderStatus?) {
        switch action {
        case .accept: return ([.pending], .accepted)
        case .startPreparing: return ([.accepted], .preparing)
        case .markReady: return ([.preparing], .ready)
        case .markCollected: return ([.ready], .collected)
        case .cancel: return ([.pending, .accepted, .preparing, .ready], .cancelled)
        case .claim, .release: return ([.accepted, .preparing, .ready], nil)
        case .pickUp: return ([.ready], .outForDelivery)
        case .deliver: return ([.outForDelivery], .delivered)
        }
    }

    /// Whether `principal` is ever allowed `action` on this order, whatever its status.
    func permits(_ action: OrderAction, by principal: Principal) -> Bool {
        switch principal.role {
        case .admin: return action != .claim
        case .owner, .manager, .staff:
            guard principal.storeID == storeID else { return false }
            return [.accept, .startPreparing, .markReady, .markCollected, .cancel].contains(action)
        case .courier:
            switch action {
            case .claim: return fulfillment == .delivery
            case .release, .pickUp, .deliver: return courierID == principal.userID
            default: return false
            }
        case .customer: return action == .cancel && createdBy == principal.userID
        }
    }

    /// Whether the action fits this order as it is now (status, fulfillment, courier).
    func fits(_ action: OrderAction, by principal: Principal) -> Bool {
        guard Self.path(of: action).from.contains(status) else { return false }
        switch action {
        case .markCollected: return fulfillment == .pickup
        case .claim: return fulfillment == .delivery && courierID == nil
        case .release: return courierID != nil
        case .pickUp: return fulfillment == .delivery && courierID != nil
        case .cancel: return principal.role != .customer || status == .pending
        case .accept, .startPreparing, .markReady, .deliver: return true
        }
    }

    /// What `principal` can do to this order now, in the order of `OrderAction.allCases`.
    public func allowedActions(for principal: Principal) -> [OrderAction] {
        OrderAction.allCases.filter { permits($0, by: principal) && fits($0, by: principal) }
    }

    /// The transition `action` by `principal` makes, or why it is refused.
    public func transition(_ action: OrderAction, by principal: Principal) -> Result<
        OrderTransition, OrderActionRefusal
    > {
        guard permits(action, by: principal) else { return .failure(.notPermitted(action, principal.role)) }
        guard fits(action, by: principal) else {
            return .failure(.illegal(action, status, allowed: allowedActions(for: principal)))
        }
        let courier: UserID?
        switch action {
        case .claim: courier = principal.userID
        case .release: courier = nil
        default: courier = courierID
        }
        return .success(OrderTransition(from: status, to: Self.path(of: action).to ?? status, courierID: courier))
    }
}
