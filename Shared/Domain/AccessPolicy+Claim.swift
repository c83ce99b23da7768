/// The claim rule, the one place a courier's claim of an order is decided.
extension AccessPolicy {
    /// Whether the caller can claim `order` now: a courier on duty, and the order in the pool.
    func mayClaim(_ order: Order) -> Bool { role == .courier && principal.onDuty && order.isInPool }

    /// The caller's claim of `order`: the transition, or why it is refused. A courier on duty
    /// claims an order in the pool; one off duty is refused with 422 `off_duty`; a courier who
    /// finds a claimable delivery order claimed by another learns that (409 `already_claimed`)
    /// rather than that it vanished; one who may see the order but not claim it is refused (403
    /// for anyone but a courier, 422 with the actions open to them for the courier carrying it);
    /// any other order is `not_found`, as if it did not exist.
    public func claim(_ order: Order) -> Result<OrderTransition, OrderActionRefusal> {
        if mayClaim(order) { return .success(order.transition(.claim, by: principal.userID)) }
        guard role == .courier else {
            return .failure(canSee(order: order) ? .notPermitted(.claim, role) : .unseen(order.id))
        }
        guard principal.onDuty else { return .failure(.offDuty) }
        if let holder = order.courierID, holder != principal.userID, order.fulfillment == OrderPool.fulfillment,
            OrderPool.statuses.contains(order.status)
        {
            return .failure(.alreadyClaimed)
        }
        guard canSee(order: order) else { return .failure(.unseen(order.id)) }
        return .failure(.illegal(.claim, order.status, allowed: allowedActions(on: order)))
    }

    /// The same, for a courier who carries `carried` orders now (claimed, not yet delivered):
    /// one who carries `OrderPool.maximumCarried` claims no more (422 `too_many_claims`).
    public func claim(_ order: Order, carrying carried: Int) -> Result<OrderTransition, OrderActionRefusal> {
        let claim = claim(order)
        if case .success = claim, carried >= OrderPool.maximumCarried { return .failure(.carryingEnough) }
        return claim
    }

    /// Refuses a courier's release of an order after `OrderPool.maximumReleasesPerDay` in the
    /// last day, `released` (422 `too_many_releases`); anyone else's release is not counted.
    public func checkRelease(releasedToday released: Int) -> OrderActionRefusal? {
        role == .courier && released >= OrderPool.maximumReleasesPerDay ? .releasedEnough : nil
    }
}
