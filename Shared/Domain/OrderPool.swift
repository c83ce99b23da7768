/// The pool: the orders every courier on duty can see and claim, which are unclaimed delivery
/// orders of the standard workflow in a claimable status (a store despatches its repairs
/// itself). One rule, read by `Order.isInPool`, by the notifications service (from an event's
/// facts of an order) and, as SQL, by the orders service's lists.
public enum OrderPool {
    /// The fulfilment of every order in the pool.
    public static let fulfillment = Fulfillment.delivery
    /// The workflow of every order in the pool.
    public static let workflow = OrderWorkflow.standard
    /// The statuses a courier can claim an order from (and release it in).
    public static let statuses: Set<OrderStatus> = [.accepted, .preparing, .ready]
    /// The most orders one courier carries at once: claimed and not yet delivered.
    public static let maximumCarried = 3
    /// The most orders one courier releases in a day: a claim shows the recipient's phone and
    /// apartment, so claiming and releasing is not a way to read them all.
    public static let maximumReleasesPerDay = 5
    /// How long a release counts against that limit, in seconds: a day.
    public static let releaseWindow: Double = 86_400

    /// Whether an order of this workflow (nil: standard), fulfilment, courier and status is in
    /// the pool.
    public static func contains(
        workflow: OrderWorkflow?, fulfillment: Fulfillment, courierID: UserID?, status: OrderStatus
    ) -> Bool {
        (workflow ?? .standard) == Self.workflow && fulfillment == Self.fulfillment && courierID == nil
            && statuses.contains(status)
    }
}

extension Order {
    /// Whether every courier on duty can see and claim it (`OrderPool`).
    public var isInPool: Bool {
        OrderPool.contains(workflow: workflow, fulfillment: fulfillment, courierID: courierID, status: status)
    }
}
