/// The order status machine, for the services and for the apps' offline buttons.
///
/// The standard workflow: `pending → accepted → preparing → ready → out_for_delivery →
/// delivered`; `ready → collected` for pickups; `cancelled` from pending, accepted, preparing or
/// ready. A courier claims an unclaimed delivery that is accepted, preparing or ready
/// (`OrderPool`), releases it before pickup, picks it up when ready and delivers it.
///
/// The repair workflow: `booked_in → in_repair → ready`, through `awaiting_parts` when parts
/// must be ordered (from booked in, or found missing during the repair); then `collected` by the
/// customer, or `despatched` by the store to a delivery order's address; `cancelled` from any
/// status before those. No courier carries a repair. Who may do which action is
/// `AccessPolicy`'s to say.
extension Order {

    /// An order is cancelled while it is still the store's.
    static let cancellable = Set(OrderStatus.allCases.filter(\.isInStore))

    /// The statuses each action starts from, and where it leads (nil: the status stays).
    static func path(of action: OrderAction) -> (from: Set<OrderStatus>, to: OrderStatus?) {
        switch action {
        case .accept: return ([.pending], .accepted)
        case .startPreparing: return ([.accepted], .preparing)
        case .startRepair: return ([.bookedIn, .awaitingParts], .inRepair)
        case .awaitParts: return ([.bookedIn, .inRepair], .awaitingParts)
        case .markReady: return ([.preparing, .inRepair], .ready)
        case .markCollected: return ([.ready], .collected)
        case .despatch: return ([.ready], .despatched)
        case .cancel: return (cancellable, .cancelled)
        case .claim, .release: return (OrderPool.statuses, nil)
        case .pickUp: return ([.ready], .outForDelivery)
        case .deliver: return ([.outForDelivery], .delivered)
        }
    }

    /// Whether `action` fits this order as it is now (status, fulfillment, courier), whoever asks.
    public func fits(_ action: OrderAction) -> Bool {
        guard Self.path(of: action).from.contains(status) else { return false }
        switch action {
        // A repair is collected however it was to go back; a standard order only when a pickup.
        case .markCollected: return isRepair || fulfillment == .pickup
        case .despatch: return isRepair && fulfillment == .delivery
        case .claim: return isInPool
        case .release: return !isRepair && courierID != nil
        case .pickUp: return !isRepair && fulfillment == .delivery && courierID != nil
        case .accept, .startPreparing, .startRepair, .awaitParts, .markReady, .deliver, .cancel: return true
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
