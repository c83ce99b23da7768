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
}
