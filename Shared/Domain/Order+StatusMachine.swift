/// The order status machine, for the services and for the apps' offline buttons.
///
/// `pending → accepted → preparing → ready → out_for_delivery → delivered`; `ready → collected`
/// for pickups; `cancelled` from pending, accepted, preparing or ready. A courier claims an
/// unclaimed delivery that is accepted, preparing or ready (`OrderPool`), releases it before
/// pickup, picks it up when ready and delivers it. Who may do which action is `AccessPolicy`'s
/// to say.
extension Order {

    /// The statuses each action starts from, and where it leads (nil: the status stays).
    static func path(of action: OrderAction) -> (from: Set<OrderStatus>, to: OrderStatus?) {
        switch action {
        case .accept: return ([.pending], .accepted)
        case .startPreparing: return ([.accepted], .preparing)
        case .markReady: return ([.preparing], .ready)
        case .markCollected: return ([.ready], .collected)
        case .cancel: return ([.pending, .accepted, .preparing, .ready], .cancelled)
        case .claim, .release: return (OrderPool.statuses, nil)
        case .pickUp: return ([.ready], .outForDelivery)
        case .deliver: return ([.outForDelivery], .delivered)
        }
    }

    /// Whether `action` fits this order as it is now (status, fulfillment, courier), whoever asks.
    public func fits(_ action: OrderAction) -> Bool {
        guard Self.path(of: action).from.contains(status) else { return false }
        switch action {
        case .markCollected: return fulfillment == .pickup
        case .claim: return fulfillment == .delivery && courierID == nil
        case .release: return courierID != nil
        case .pickUp: return fulfillment == .delivery && courierID != nil
        case .accept, .startPreparing, .markReady, .deliver, .cancel: return true
        }
    }

    /// Where `action`, which fits, takes this order when `actor` does it.
    func transition(_ action: OrderAction, by actor: UserID) -> OrderTransition {
        let courier: UserID?
        switch action {
        case .claim: courier = actor
        case .release: courier = nil
        default: courier = courierID
        }
        return OrderTransition(from: status, to: Self.path(of: action).to ?? status, courierID: courier)
    }
}
