/// Who may see or change what: stores, users, orders with their items and actions, products
/// and their stock, payments and receipts. The one place every service asks, so that each rule
/// is written once and tested once, as a table of every role, scope and operation.
/// (Notifications need no rule here: every notifications method reads or changes the caller's
/// own inbox, by the caller's user id.)
///
/// There are two kinds of answer. Whether the caller may *see* a resource: one who may not is
/// told it does not exist (`not_found`), so that ids cannot be probed. And whether the caller
/// may *change* it: one who sees it but may not change it gets `permission_denied`. Every
/// question checks the caller's store itself, so none relies on another having been asked
/// first; an action is allowed by `permits` and the order's state together (`allowedActions`).
public struct AccessPolicy: Sendable {
    public let principal: Principal

    public init(_ principal: Principal) { self.principal = principal }

    var role: Role { principal.role }
    private var isAdmin: Bool { role == .admin }
    /// Whether the caller is one of the platform's, who see every store: admins, couriers,
    /// customers and the platform's staff.
    private var seesEveryStore: Bool { !role.isStoreRole }

    /// Whether the caller works in `store`: one of its owners, managers or staff.
    private func worksIn(_ store: StoreID?) -> Bool {
        role.isStoreRole && store != nil && principal.storeID == store
    }

    /// Whether the caller runs `store`: its owner or one of its managers.
    private func runs(_ store: StoreID?) -> Bool {
        (role == .owner || role == .manager) && worksIn(store)
    }

    // MARK: Stores

    /// A store's profile: the platform's roles (admins, the platform's staff, couriers and
    /// customers) see every store's, store users their own.
    public func canSee(store: StoreID) -> Bool { seesEveryStore || worksIn(store) }

    /// Opening stores: admins, and supervisors, who approve restaurants' applications (which
    /// open their stores).
    public var canOpenStores: Bool { isAdmin || role == .supervisor }

    /// A store's terms with the platform (`tier`, `commission_bp`), set when it opens or later:
    /// admins only.
    public var canSetStoreTerms: Bool { isAdmin }

    /// A store's profile, prices and rates: admins, and the store's owner and managers.
    public func canChange(store: StoreID) -> Bool { isAdmin || runs(store) }

    /// A store's public profile alone (`image_url`, `cuisine`, `description`): whoever changes
    /// the store, and the platform's social-media staff.
    public func canEditPublicProfile(of store: StoreID) -> Bool { canChange(store: store) || role == .socialMedia }

    /// Refuses a change of a store from `before` to `after` that is not the caller's to make:
    /// one who may change the store makes any, the social-media staff only its public profile
    /// (a field sent back as it was read is no change).
    public func checkChange(from before: Store, to after: Store) throws(OrderlyError) {
        guard !canChange(store: before.id) else { return }
        var profileOnly = before
        profileOnly.imageURL = after.imageURL
        profileOnly.cuisine = after.cuisine
        profileOnly.description = after.description
        guard canEditPublicProfile(of: before.id), profileOnly == after else {
            throw OrderlyError(
                .permissionDenied,
                "\(ErrorTexts.withArticle(role.rawValue)) changes only a store's image_url, cuisine and description")
        }
    }

    /// A store's commercial terms with the platform (`commission_bp`): admins, accountants, and
    /// the store's owner and managers.
    public func canSeeTerms(of store: StoreID) -> Bool { isAdmin || role == .accountant || runs(store) }

    /// A store's internals (all but its public profile, `Store.publicProfile`): its own users and
    /// the platform's staff. Customers and couriers read the public profile, as visitors do.
    public func canSeeInternals(of store: StoreID) -> Bool { isAdmin || role.isPlatformStaff || worksIn(store) }

    /// The store as the caller receives it: its public profile alone for one who may not see its
    /// internals, and without its commercial terms for one who may not read them.
    public func present(_ store: Store) -> Store {
        guard canSeeInternals(of: store.id) else { return store.publicProfile }
        guard !canSeeTerms(of: store.id) else { return store }
        var presented = store
        presented.commissionBP = nil
        return presented
    }

    /// What a visitor without an account may read: every store's public profile and menu, and
    /// nothing else (the gateway sends no principal for them).
    public static func presentToVisitor(_ store: Store) -> Store { store.publicProfile }

    /// The stores the caller's lists show: the same as `canSee(store:)`.
    public var visibleStores: StoreScope {
        seesEveryStore ? .every : principal.storeID.map { .only($0) } ?? .none
    }

    // MARK: Users

    /// A user's record: everyone sees their own, admins everyone's, owners and managers their
    /// store's users', supervisors couriers' and support customers'.
    public func canSee(user: User) -> Bool {
        user.id == principal.userID || isAdmin || runs(user.storeID) || listedRole.map { $0 == user.role } ?? false
    }

    /// The one role whose users a supervisor (couriers) or the support desk (customers) reads
    /// across the platform.
    private var listedRole: Role? {
        switch role {
        case .supervisor: return .courier
        case .support: return .customer
        default: return nil
        }
    }

    /// Creating a user of `role` in `store` (nil for the platform's roles): admins create anyone
    /// (the platform's staff included, whom nobody else creates), owners managers and staff of
    /// their store, managers staff of theirs.
    public func canCreate(_ role: Role, in store: StoreID?) -> Bool {
        switch self.role {
        case .admin: return true
        case .owner: return (role == .manager || role == .staff) && worksIn(store)
        case .manager: return role == .staff && worksIn(store)
        default: return false
        }
    }

    /// Changing a user's staff role or status (`active`): admins anyone, owners their store's
    /// managers and staff, managers their store's staff. Only an admin manages their own account.
    public func canManage(_ user: User) -> Bool {
        guard user.id != principal.userID else { return isAdmin }
        switch role {
        case .admin: return true
        case .owner: return worksIn(user.storeID) && (user.role == .manager || user.role == .staff)
        case .manager: return worksIn(user.storeID) && user.role == .staff
        default: return false
        }
    }

    /// Changing a user's role: admins only, of the users they manage.
    public func canChangeRole(of user: User) -> Bool { isAdmin && canManage(user) }

    /// Changing a user's name, phone or password: the user, and whoever manages them.
    public func canEditProfile(of user: User) -> Bool { user.id == principal.userID || canManage(user) }

    /// The users a list of `store`'s (every store's when nil) and of `role` (every role's when
    /// nil) shows, as the stores and the role to select: admins any store's, owners and managers
    /// their own store's (another store's list is empty), supervisors couriers and the support
    /// desk customers (asking for another role is 403). Other roles list no users.
    public func visibleUsers(store: StoreID?, role requested: Role? = nil) throws(OrderlyError) -> (
        stores: StoreScope, role: Role?
    ) {
        switch role {
        case .admin: return (store.map { .only($0) } ?? .every, requested)
        case .owner, .manager:
            guard let own = principal.storeID, store == nil || store == own else { return (.none, requested) }
            return (.only(own), requested)
        case .supervisor, .support:
            let listed = listedRole
            guard requested == nil || requested == listed else {
                throw OrderlyError(
                    .permissionDenied,
                    "\(ErrorTexts.withArticle(role.rawValue)) lists \(listed?.rawValue ?? "no") users only")
            }
            return (store.map { .only($0) } ?? .every, listed)
        default:
            throw OrderlyError(.permissionDenied, "\(ErrorTexts.withArticle(role.rawValue)) cannot list users")
        }
    }

    /// The users of `store` as its shared clock-in screen shows them (names, roles, photos and
    /// clock state): admins and the store's users.
    public func canListColleagues(in store: StoreID) -> Bool { isAdmin || worksIn(store) }

    /// Reading, approving and rejecting applications to join the platform: admins and
    /// supervisors.
    public var canReviewApplications: Bool { isAdmin || role == .supervisor }

    /// Reading another user's notifications and resending one to their devices, `owner` being the
    /// user and `ownerRole` their role: admins anyone's, the support desk customers'.
    public func canTendNotifications(of owner: UserID, role ownerRole: Role) -> Bool {
        owner != principal.userID && (isAdmin || (role == .support && ownerRole == .customer))
    }

    /// Going on and off duty: couriers only.
    public var canGoOnDuty: Bool { role == .courier }

    /// Who closes the caller's account: nil for customers and couriers, who close their own
    /// (`DELETE /v1/me`); a store's staff and managers are closed by their store's owner or a
    /// manager, an owner by the platform's admins, and the platform's staff by an admin.
    public var closerOfOwnAccount: String? {
        switch role {
        case .customer, .courier: nil
        case .staff, .manager: "your store's owner or a manager"
        case .owner: "the platform's admins"
        case .admin, .supervisor, .support, .accountant, .socialMedia: "an admin"
        }
    }

    /// Whose delivery addresses the caller reads and writes: a customer their own (another's
    /// are as if they did not exist); nobody else keeps any (403).
    public func addressOwner() throws(OrderlyError) -> UserID {
        guard role == .customer else {
            throw OrderlyError(.permissionDenied, "only customers keep delivery addresses")
        }
        return principal.userID
    }

    // MARK: Orders

    /// Whether the caller runs the platform's orders: admins, supervisors and the support desk,
    /// who see every store's.
    private var overseesOrders: Bool { isAdmin || role == .supervisor || role == .support }

    /// An order: admins, supervisors and support see every one, store users their store's,
    /// customers the ones they created, couriers the ones they carry and, while on duty, the
    /// pool: unclaimed delivery orders in a status a courier can claim from.
    public func canSee(order: Order) -> Bool {
        switch role {
        case .admin, .supervisor, .support: return true
        case .owner, .manager, .staff: return worksIn(order.storeID)
        case .courier: return order.courierID == principal.userID || (principal.onDuty && order.isInPool)
        case .customer: return order.createdBy == principal.userID
        case .accountant, .socialMedia: return false
        }
    }

    /// The orders the caller's lists and change feed cover: the same orders as
    /// `canSee(order:)`. An admin naming a store gets that store's; a store user naming another
    /// store gets none.
    public func visibleOrders(store: StoreID?) -> OrderScope {
        switch role {
        case .admin, .supervisor, .support: return store.map { .store($0) } ?? .every
        case .owner, .manager, .staff:
            guard let own = principal.storeID, store == nil || store == own else { return .none }
            return .store(own)
        case .courier: return .courier(principal.userID, pool: principal.onDuty)
        case .customer: return .createdBy(principal.userID)
        case .accountant, .socialMedia: return .none
        }
    }

    /// Listing the pool alone (`available=true`): couriers on duty (one off duty is refused with
    /// 422 `off_duty`), admins and supervisors.
    public func checkPoolListing() throws(OrderlyError) {
        guard role == .courier || isAdmin || role == .supervisor else {
            throw OrderlyError(.permissionDenied, "only couriers list the orders available to claim")
        }
        if role == .courier, !principal.onDuty { throw OrderActionRefusal.offDuty.error }
    }

    /// The store a new order or payment goes to: the caller's own (naming another is answered
    /// as if it did not exist), or the one an admin names. No other role creates either.
    public func storeForWriting(_ requested: StoreID?) throws(OrderlyError) -> StoreID {
        switch role {
        case .admin:
            guard let requested else { throw OrderlyError.invalidFields(["store_id": "is required for admins"]) }
            return requested
        case .owner, .manager, .staff:
            guard let own = principal.storeID else {
                throw OrderlyError(.permissionDenied, "this account has no store")
            }
            if let requested, requested != own { throw OrderlyError(.notFound, "no store \(requested)") }
            return own
        default:
            throw OrderlyError(.permissionDenied, "\(ErrorTexts.withArticle(role.rawValue)) cannot do this")
        }
    }

    /// Checking out (`POST /v1/orders` with a cart): customers only, in any store they see; a
    /// store's users create orders with their recipient's details instead.
    public func checkCheckout() throws(OrderlyError) {
        guard role == .customer else {
            throw OrderlyError(.permissionDenied, "only customers check out; a \(role.rawValue) creates orders")
        }
    }

    /// Paying for `order` online (`POST /v1/payments` by a customer): the customer whose order it
    /// is; another's order is as if it did not exist.
    public func canPay(_ order: Order) -> Bool {
        role == .customer && order.customerID == principal.userID
    }

    /// Changing an order's own fields (recipient, address, notes, due time): admins, supervisors
    /// and the users of the order's store. Whether the order still takes changes is its own rule
    /// (`Order.isEditable`).
    public func mayEdit(_ order: Order) -> Bool { isAdmin || role == .supervisor || worksIn(order.storeID) }

    /// Changing what an order costs: its lines and their prices, its delivery fee (boxes,
    /// fulfillment) and tip: admins and the users of the order's store. Supervisors run
    /// operations and touch no money.
    public func mayChangeMoney(of order: Order) -> Bool { isAdmin || worksIn(order.storeID) }

    /// Stating the cash collected for an order on delivery: admins, and the courier carrying it.
    public func mayStateCash(for order: Order) -> Bool {
        isAdmin || (role == .courier && order.courierID == principal.userID)
    }

    /// Whether the caller can change the order's fields now (`can_edit`).
    public func canEdit(_ order: Order) -> Bool { mayEdit(order) && order.isEditable }

    /// Refuses a change to the order's fields, or with `money` to what it costs (its items):
    /// `not_found` when the caller cannot see the order, `permission_denied` when they may not
    /// make it, 422 `order_locked` when it no longer takes changes.
    public func checkEdit(_ order: Order, money: Bool = false) throws(OrderlyError) {
        guard canSee(order: order) else { throw OrderlyError(.notFound, "no order \(order.id)") }
        guard mayEdit(order) else {
            throw OrderlyError(.permissionDenied, "only the store's staff change an order's details and items")
        }
        if money, !mayChangeMoney(of: order) {
            throw OrderlyError(
                .permissionDenied,
                "\(ErrorTexts.withArticle(role.rawValue)) changes no order line, price, tip or cash amount")
        }
        try order.requireEditable()
    }

    /// What a store's own users do to its orders.
    static let storeActions: Set<OrderAction> = [
        .accept, .startPreparing, .startRepair, .awaitParts, .markReady, .markCollected, .despatch, .cancel,
    ]

    /// Whether the caller may ever do `action` to `order`, whatever its status: the store's users
    /// accept, prepare, repair, mark ready, mark collected, despatch and cancel; a courier on duty claims a
    /// delivery in the pool (`claim(_:)`), and the courier carrying it releases, picks up and
    /// delivers it; a customer cancels their own order; admins and supervisors may do anything
    /// but claim (only a courier carries); the support desk cancels any order (with a reason,
    /// as every cancellation).
    public func permits(_ action: OrderAction, on order: Order) -> Bool {
        switch role {
        case .admin, .supervisor: return action != .claim
        case .support: return action == .cancel
        case .accountant, .socialMedia: return false
        case .owner, .manager, .staff:
            return worksIn(order.storeID) && Self.storeActions.contains(action)
        case .courier:
            switch action {
            case .claim: return mayClaim(order)
            case .release, .pickUp, .deliver: return order.courierID == principal.userID
            case .accept, .startPreparing, .startRepair, .awaitParts, .markReady, .markCollected, .despatch, .cancel:
                return false
            }
        case .customer: return action == .cancel && order.createdBy == principal.userID
        }
    }

    /// Archiving `order`, which takes it off its store's lists and keeps it: admins, supervisors
    /// and the store's owners, managers and staff. Archiving a pending order cancels it, so the
    /// cancel's own rule (`transition(.cancel, on:)`) holds for it too.
    public func canArchive(_ order: Order) -> Bool {
        switch role {
        case .admin, .supervisor: return true
        case .owner, .manager, .staff: return worksIn(order.storeID)
        case .support, .accountant, .socialMedia, .courier, .customer: return false
        }
    }

    /// Whether the status allows the caller's `action`, beyond `Order.fits`: a customer cancels
    /// only while the order is pending.
    private func statusAllows(_ action: OrderAction, on order: Order) -> Bool {
        order.fits(action) && (role != .customer || action != .cancel || order.status == .pending)
            && (action != .accept || !order.awaitsPayment)
    }

    /// What the caller can do to `order` now, in the order of `OrderAction.allCases`: the
    /// buttons an app shows.
    public func allowedActions(on order: Order) -> [OrderAction] {
        OrderAction.allCases.filter { permits($0, on: order) && statusAllows($0, on: order) }
    }

    /// The change `action` by the caller makes to `order`, or why it is refused. A card order is
    /// accepted only once paid.
    public func transition(_ action: OrderAction, on order: Order) -> Result<OrderTransition, OrderActionRefusal> {
        if action == .claim { return claim(order) }
        guard permits(action, on: order) else { return .failure(.notPermitted(action, role)) }
        if action == .accept, order.status == .pending, order.awaitsPayment { return .failure(.paymentRequired) }
        guard statusAllows(action, on: order) else {
            return .failure(.illegal(action, order.status, allowed: allowedActions(on: order)))
        }
        return .success(order.transition(action, by: principal.userID))
    }

    /// The order as the caller receives it: with the actions open to them and whether they may
    /// edit it; for a courier who has not claimed it, without the recipient's phone and
    /// apartment; for its customer, without the store's own notes.
    public func present(_ order: Order) -> Order {
        var presented = order
        presented.allowedActions = allowedActions(on: order)
        presented.canEdit = canEdit(order)
        presented.paidAmount = order.paidAmount ?? 0
        presented.paymentStatus = order.paymentStatus ?? .unpaid
        if role == .courier, order.courierID != principal.userID {
            presented.phone = nil
            presented.apartment = nil
            presented.deliveryAddress = presented.formattedDeliveryAddress
        }
        if role == .customer { presented.notes = nil }
        return presented
    }

    /// Whose orders a search may match by the recipient's phone: for a courier only the ones they
    /// carry (no other's phone is theirs to see, nor to find out digit by digit); nil for every
    /// order the caller sees.
    public var phoneSearchLimitedTo: UserID? { role == .courier ? principal.userID : nil }

    /// A courier's earnings: couriers only.
    public var hasEarnings: Bool { role == .courier }

    // MARK: Products and stock

    /// A store's products with their stock, one by one and in lists: admins, the store's users
    /// and the platform's social-media staff. Others see products only through the store's menu.
    public func canSeeProducts(of store: StoreID) -> Bool { isAdmin || worksIn(store) || role == .socialMedia }

    /// Creating and changing products, and adjusting their stock: admins, and the store's owner
    /// and managers.
    public func canChangeProducts(of store: StoreID) -> Bool { isAdmin || runs(store) }

    /// Changing products' names, descriptions and images alone: whoever changes products, and
    /// the platform's social-media staff.
    public func canEditProductTexts(of store: StoreID) -> Bool {
        canChangeProducts(of: store) || role == .socialMedia
    }

    /// Refuses a change of a product from `before` to `after` that is not the caller's to make:
    /// one who may change products makes any, the social-media staff only its name, description
    /// and image (a field sent back as it was read is no change).
    public func checkChange(from before: Product, to after: Product) throws(OrderlyError) {
        guard !canChangeProducts(of: before.storeID) else { return }
        var textsOnly = before
        textsOnly.name = after.name
        textsOnly.description = after.description
        textsOnly.imageURL = after.imageURL
        guard canEditProductTexts(of: before.storeID), textsOnly == after else {
            throw OrderlyError(
                .permissionDenied,
                "\(ErrorTexts.withArticle(role.rawValue)) changes only a product's name, description and image_url")
        }
    }

    /// Holding and selling stock (reservations, their commit and release): admins and the
    /// store's users, who sell at the counter.
    public func canReserveStock(of store: StoreID) -> Bool { isAdmin || worksIn(store) }

    /// Holding stock for an order's lines, which only the orders service asks for: whoever may
    /// sell the store's stock, and a customer for the order they are checking out.
    public func canReserveStock(of store: StoreID, forAnOrder: Bool) -> Bool {
        canReserveStock(of: store) || (forAnOrder && role == .customer && canSeeMenu(of: store))
    }

    /// A store's menu, its active products as customers see them: every signed-in user who may
    /// see the store.
    public func canSeeMenu(of store: StoreID) -> Bool { canSee(store: store) }

    // MARK: Payments and receipts

    /// A payment: admins and accountants see every one, store users their store's, a customer
    /// the ones made out to them.
    public func canSee(payment: Payment) -> Bool {
        canSeePayments(of: payment.storeID)
            || (role == .customer && payment.customerUserID == principal.userID)
    }

    /// A store's payments, receipts and refunds, in lists: whoever takes them (staff only those
    /// they took, `receiptsTakenBy(in:)`), and accountants.
    public func canSeePayments(of store: StoreID) -> Bool { canTakePayments(in: store) || role == .accountant }

    /// A store's customer records, NFC cards and customers' devices, created, read and changed
    /// at the till: admins and the store's users.
    public func canKeepCustomers(of store: StoreID) -> Bool { isAdmin || worksIn(store) }

    /// Reading a store's customer records, NFC cards and customers' devices: whoever keeps them,
    /// and the support desk.
    public func canSeeCustomers(of store: StoreID) -> Bool { canKeepCustomers(of: store) || role == .support }

    /// Refuses a change to `store`'s customer records or cards: `missing` (a `not_found`) for a
    /// caller who may not see them, `permission_denied` for one who only reads them.
    public func checkKeepingCustomers(of store: StoreID, else missing: OrderlyError) throws(OrderlyError) {
        guard canSeeCustomers(of: store) else { throw missing }
        guard canKeepCustomers(of: store) else {
            throw OrderlyError(
                .permissionDenied, "\(ErrorTexts.withArticle(role.rawValue)) reads customers and cards but changes none"
            )
        }
    }

    /// Deleting a customer record: admins and the store's owners and managers.
    public func canDeleteCustomers(of store: StoreID) -> Bool { isAdmin || runs(store) }

    /// A store's or a courier's balances and ledger entries: admins and accountants; a store's
    /// owners and managers; a courier their own.
    public func canSeeBalance(of holder: Ledger.Holder) -> Bool {
        if isAdmin || role == .accountant { return true }
        switch holder {
        case .store(let store): return runs(store)
        case .courier(let courier): return role == .courier && courier == principal.userID
        }
    }

    /// A ledger entry of `holder`'s as the caller reads it: whole for admins and accountants, and
    /// for a store's owners and managers (their store's commission is theirs to read); a courier
    /// reads only the postings to their own accounts, without the store's account or the
    /// commission.
    public func present(_ entry: LedgerEntry, of holder: Ledger.Holder) -> LedgerEntry {
        guard case .courier = holder, !(isAdmin || role == .accountant) else { return entry }
        var presented = entry
        presented.postings = entry.postings.filter { LedgerAccount(key: $0.account)?.holder == holder }
        presented.commission = nil
        return presented
    }

    /// Recording payouts to stores and couriers, and cash they paid in: admins and accountants.
    public var canRecordPayouts: Bool { isAdmin || role == .accountant }

    /// Clocking `user` (a store user: their id, role and store) in or out: each store user
    /// themselves, owners their store's managers and staff, managers their store's staff,
    /// admins anyone of a store.
    public func canClock(user: UserID, role userRole: Role, store: StoreID?) -> Bool {
        guard userRole.isStoreRole, store != nil else { return false }
        if user == principal.userID { return true }
        switch role {
        case .admin: return true
        case .owner: return worksIn(store) && (userRole == .manager || userRole == .staff)
        case .manager: return worksIn(store) && userRole == .staff
        default: return false
        }
    }

    /// A store's takings (its statistics, its shifts and their drawers, every payment and
    /// receipt): admins, accountants, and the store's owners and managers.
    public func canSeeTakings(of store: StoreID) -> Bool { isAdmin || role == .accountant || runs(store) }

    /// A store's activity feed (payments, refunds, cards linked, shifts, products, low stock):
    /// admins, and the store's owners and managers.
    public func canSeeActivity(of store: StoreID) -> Bool { isAdmin || runs(store) }

    /// Taking a store's payments (ringing up, confirming cash, cancelling): admins, and the
    /// store's users.
    public func canTakePayments(in store: StoreID) -> Bool { isAdmin || worksIn(store) }

    /// A store's webhooks and their deliveries (which carry its orders and payments whole):
    /// admins, and the store's owners and managers.
    public func canManageWebhooks(of store: StoreID) -> Bool { isAdmin || runs(store) }

    // MARK: Shared tills

    /// Registering, listing and revoking a store's shared tills: admins and the store's owners
    /// and managers.
    public func canManageTills(of store: StoreID) -> Bool { isAdmin || runs(store) }

    /// Setting or clearing `user`'s PIN, with which they sign in on their store's tills: the
    /// user themself, and admins and the owners and managers of the store they work in.
    public func canSetPIN(of user: User) -> Bool {
        user.id == principal.userID || isAdmin || (user.role.isStoreRole && runs(user.storeID))
    }

    /// A receipt, of a payment taken by `staff`: as the store's payments are listed, admins and
    /// the store's owners and managers see every one, its staff those of the payments they took.
    public func canSee(receipt: Receipt, ofPaymentTakenBy staff: UserID) -> Bool {
        canSeeTakings(of: receipt.storeID) || (worksIn(receipt.storeID) && staff == principal.userID)
    }

    /// Whose payments' receipts a list of `store`'s shows: every one's (nil) for admins and the
    /// store's owners and managers, the caller's own for its staff.
    public func receiptsTakenBy(in store: StoreID) -> UserID? {
        canSeeTakings(of: store) ? nil : principal.userID
    }

    /// Refunding `amount` of `payment`: admins and the store's owners and managers; a staff member
    /// only a payment they took, up to the store's `staffRefundLimit` at a time.
    public func canRefund(_ payment: Payment, amount: Int64, staffLimit: Int64) -> Bool {
        if isAdmin || runs(payment.storeID) { return true }
        return role == .staff && worksIn(payment.storeID) && payment.staffID == principal.userID
            && amount <= staffLimit
    }

    /// Cancelling `order` when the cancel refunds its completed payments, `amount` in all, in a
    /// store whose staff refund up to `staffLimit`: admins, the store's owners and managers, the
    /// platform's supervisors and support desk (the refund recorded as theirs, with their
    /// reason); the store's staff up to the limit, clocked in (which the payments service, which
    /// keeps the shifts, checks); the customer their own order, while it is pending
    /// (`allowedActions`). Couriers, accountants and the social-media staff cancel nothing.
    public func mayRefundByCancelling(_ order: Order, amount: Int64, staffLimit: Int64) -> Bool {
        switch role {
        case .admin, .supervisor, .support: return true
        case .owner, .manager: return worksIn(order.storeID)
        case .staff: return worksIn(order.storeID) && amount <= staffLimit
        case .customer: return order.createdBy == principal.userID
        case .courier, .accountant, .socialMedia: return false
        }
    }

    // MARK: Devices

    /// A device notifications are pushed to: its user alone registers and removes it, whatever
    /// their role (an admin has no business with another's phone).
    public func canManageDevice(of owner: UserID) -> Bool { owner == principal.userID }
}

/// Which stores (or which stores' users) a list covers.
public enum StoreScope: Hashable, Sendable {
    case every
    case only(StoreID)
    /// Nothing: a list of a store the caller has no part in.
    case none

    /// Whether `store` is in the scope.
    public func contains(_ store: StoreID?) -> Bool {
        switch self {
        case .every: return true
        case .only(let only): return store == only
        case .none: return false
        }
    }
}

/// Which orders a list or change feed covers (`AccessPolicy.visibleOrders(store:)`).
public enum OrderScope: Hashable, Sendable {
    case every
    case store(StoreID)
    /// A courier's: the orders they carry and, when `pool`, unclaimed delivery orders in a
    /// claimable status.
    case courier(UserID, pool: Bool)
    case createdBy(UserID)
    case none

    /// Whether `order` is in the scope (what the orders service's SQL selects).
    public func contains(_ order: Order) -> Bool {
        switch self {
        case .every: return true
        case .store(let store): return order.storeID == store
        case .courier(let courier, let pool): return order.courierID == courier || (pool && order.isInPool)
        case .createdBy(let user): return order.createdBy == user
        case .none: return false
        }
    }
}
