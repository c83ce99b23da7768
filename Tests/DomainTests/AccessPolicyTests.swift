import Domain
import Foundation
import Testing

/// The access policy as a table: every role, as a caller in the resource's store (`s`), in
/// another store (`o`) and in none (`n`), against every operation. `Y` is allowed, `.` refused.
/// The resources all belong to store S; the callers' own ids are theirs alone, so "another
/// user" is never the caller. Couriers are on duty (the off-duty rules have a test of their own).
@Suite("Access policy")
struct AccessPolicyTests {
    static let roles: [Role] = [
        .admin, .owner, .manager, .staff, .courier, .customer, .supervisor, .support, .accountant, .socialMedia,
    ]

    enum Scope: CaseIterable {
        case sameStore, otherStore, noStore
    }

    //                                          admin owner manager staff courier customer supervisor
    //                                          support accountant social_media, each in its store,
    //                                          another and none:
    static let table: [(operation: String, expected: String)] = [
        ("store.see", /*                        */ "YYY   Y..   Y..   Y..   YYY   YYY   YYY   YYY   YYY   YYY"),
        ("store.open", /*                       */ "YYY   ...   ...   ...   ...   ...   YYY   ...   ...   ..."),
        ("store.set terms", /*                  */ "YYY   ...   ...   ...   ...   ...   ...   ...   ...   ..."),
        ("store.change", /*                     */ "YYY   Y..   Y..   ...   ...   ...   ...   ...   ...   ..."),
        ("store.edit public profile", /*        */ "YYY   Y..   Y..   ...   ...   ...   ...   ...   ...   YYY"),
        ("store.list shows it", /*              */ "YYY   Y..   Y..   Y..   YYY   YYY   YYY   YYY   YYY   YYY"),
        ("store.see internals", /*              */ "YYY   Y..   Y..   Y..   ...   ...   YYY   YYY   YYY   YYY"),
        ("user.see another of the store", /*    */ "YYY   Y..   Y..   ...   ...   ...   ...   ...   ...   ..."),
        ("user.see a courier", /*               */ "YYY   ...   ...   ...   ...   ...   YYY   ...   ...   ..."),
        ("user.see a customer", /*              */ "YYY   ...   ...   ...   ...   ...   ...   YYY   ...   ..."),
        ("user.see oneself", /*                 */ "YYY   YYY   YYY   YYY   YYY   YYY   YYY   YYY   YYY   YYY"),
        ("user.create owner", /*                */ "YYY   ...   ...   ...   ...   ...   ...   ...   ...   ..."),
        ("user.create manager", /*              */ "YYY   Y..   ...   ...   ...   ...   ...   ...   ...   ..."),
        ("user.create staff", /*                */ "YYY   Y..   Y..   ...   ...   ...   ...   ...   ...   ..."),
        ("user.create courier", /*              */ "YYY   ...   ...   ...   ...   ...   ...   ...   ...   ..."),
        ("user.create platform staff", /*       */ "YYY   ...   ...   ...   ...   ...   ...   ...   ...   ..."),
        ("user.manage staff", /*                */ "YYY   Y..   Y..   ...   ...   ...   ...   ...   ...   ..."),
        ("user.manage manager", /*              */ "YYY   Y..   ...   ...   ...   ...   ...   ...   ...   ..."),
        ("user.manage oneself", /*              */ "YYY   ...   ...   ...   ...   ...   ...   ...   ...   ..."),
        ("user.change role of staff", /*        */ "YYY   ...   ...   ...   ...   ...   ...   ...   ...   ..."),
        ("user.edit profile of staff", /*       */ "YYY   Y..   Y..   ...   ...   ...   ...   ...   ...   ..."),
        ("user.edit own profile", /*            */ "YYY   YYY   YYY   YYY   YYY   YYY   YYY   YYY   YYY   YYY"),
        ("user.list the store's", /*            */ "YYY   Y..   Y..   ...   ...   ...   ...   ...   ...   ..."),
        ("user.list couriers", /*               */ "YYY   ...   ...   ...   ...   ...   YYY   ...   ...   ..."),
        ("user.list customers", /*              */ "YYY   ...   ...   ...   ...   ...   ...   YYY   ...   ..."),
        ("user.list colleagues", /*             */ "YYY   Y..   Y..   Y..   ...   ...   ...   ...   ...   ..."),
        ("courier.go on duty", /*               */ "...   ...   ...   ...   YYY   ...   ...   ...   ...   ..."),
        ("user.close own account", /*           */ "...   ...   ...   ...   YYY   YYY   ...   ...   ...   ..."),
        ("applications.review", /*              */ "YYY   ...   ...   ...   ...   ...   YYY   ...   ...   ..."),
        ("notifications.tend a customer's", /*  */ "YYY   ...   ...   ...   ...   ...   ...   YYY   ...   ..."),
        ("notifications.tend a courier's", /*   */ "YYY   ...   ...   ...   ...   ...   ...   ...   ...   ..."),
        ("address.keep", /*                     */ "...   ...   ...   ...   ...   YYY   ...   ...   ...   ..."),
        ("order.see pending", /*                */ "YYY   Y..   Y..   Y..   ...   ...   YYY   YYY   ...   ..."),
        ("order.see in the pool", /*            */ "YYY   Y..   Y..   Y..   YYY   ...   YYY   YYY   ...   ..."),
        ("order.see carried by the caller", /*  */ "YYY   Y..   Y..   Y..   YYY   ...   YYY   YYY   ...   ..."),
        ("order.see created by the caller", /*  */ "YYY   Y..   Y..   Y..   ...   YYY   YYY   YYY   ...   ..."),
        ("order.list shows the pool", /*        */ "YYY   Y..   Y..   Y..   YYY   ...   YYY   YYY   ...   ..."),
        ("order.create in the store", /*        */ "YYY   Y..   Y..   Y..   ...   ...   ...   ...   ...   ..."),
        ("order.check out", /*                  */ "...   ...   ...   ...   ...   YYY   ...   ...   ...   ..."),
        ("order.pay own card order", /*         */ "...   ...   ...   ...   ...   YYY   ...   ...   ...   ..."),
        ("order.pay another's card order", /*   */ "...   ...   ...   ...   ...   ...   ...   ...   ...   ..."),
        ("order.store notes shown", /*          */ "YYY   YYY   YYY   YYY   YYY   ...   YYY   YYY   YYY   YYY"),
        ("action.accept unpaid card order", /*  */ "...   ...   ...   ...   ...   ...   ...   ...   ...   ..."),
        ("action.accept paid card order", /*    */ "YYY   Y..   Y..   Y..   ...   ...   YYY   ...   ...   ..."),
        ("order.edit fields", /*                */ "YYY   Y..   Y..   Y..   ...   ...   YYY   ...   ...   ..."),
        ("order.edit items and prices", /*      */ "YYY   Y..   Y..   Y..   ...   ...   ...   ...   ...   ..."),
        ("order.state cash collected", /*       */ "YYY   ...   ...   ...   YYY   ...   ...   ...   ...   ..."),
        ("order.edit when delivered", /*        */ "...   ...   ...   ...   ...   ...   ...   ...   ...   ..."),
        ("action.accept", /*                    */ "YYY   Y..   Y..   Y..   ...   ...   YYY   ...   ...   ..."),
        ("action.cancel", /*                    */ "YYY   Y..   Y..   Y..   ...   ...   YYY   YYY   ...   ..."),
        ("action.cancel own pending order", /*  */ "YYY   Y..   Y..   Y..   ...   YYY   YYY   YYY   ...   ..."),
        ("action.claim", /*                     */ "...   ...   ...   ...   YYY   ...   ...   ...   ...   ..."),
        ("pool.list alone", /*                  */ "YYY   ...   ...   ...   YYY   ...   YYY   ...   ...   ..."),
        ("action.pick_up carried order", /*     */ "YYY   ...   ...   ...   YYY   ...   YYY   ...   ...   ..."),
        ("action.mark_collected", /*            */ "YYY   Y..   Y..   Y..   ...   ...   YYY   ...   ...   ..."),
        ("courier.earnings", /*                 */ "...   ...   ...   ...   YYY   ...   ...   ...   ...   ..."),
        ("product.see", /*                      */ "YYY   Y..   Y..   Y..   ...   ...   ...   ...   ...   YYY"),
        ("product.change", /*                   */ "YYY   Y..   Y..   ...   ...   ...   ...   ...   ...   ..."),
        ("product.edit texts", /*               */ "YYY   Y..   Y..   ...   ...   ...   ...   ...   ...   YYY"),
        ("stock.reserve", /*                    */ "YYY   Y..   Y..   Y..   ...   ...   ...   ...   ...   ..."),
        ("stock.reserve for a checkout", /*     */ "YYY   Y..   Y..   Y..   ...   YYY   ...   ...   ...   ..."),
        ("menu.see", /*                         */ "YYY   Y..   Y..   Y..   YYY   YYY   YYY   YYY   YYY   YYY"),
        ("payment.see", /*                      */ "YYY   Y..   Y..   Y..   ...   ...   ...   ...   YYY   ..."),
        ("payment.record in the store", /*      */ "YYY   Y..   Y..   Y..   ...   ...   ...   ...   ...   ..."),
        ("payment.see made out to them", /*     */ "YYY   Y..   Y..   Y..   ...   YYY   ...   ...   YYY   ..."),
        ("payment.take in the store", /*        */ "YYY   Y..   Y..   Y..   ...   ...   ...   ...   ...   ..."),
        ("payment.list the store's", /*         */ "YYY   Y..   Y..   Y..   ...   ...   ...   ...   YYY   ..."),
        ("takings.see", /*                      */ "YYY   Y..   Y..   ...   ...   ...   ...   ...   YYY   ..."),
        ("customer and card.keep", /*           */ "YYY   Y..   Y..   Y..   ...   ...   ...   ...   ...   ..."),
        ("customer and card.see", /*            */ "YYY   Y..   Y..   Y..   ...   ...   ...   YYY   ...   ..."),
        ("customer.delete", /*                  */ "YYY   Y..   Y..   ...   ...   ...   ...   ...   ...   ..."),
        ("activity.see", /*                     */ "YYY   Y..   Y..   ...   ...   ...   ...   ...   ...   ..."),
        ("webhooks.manage", /*                  */ "YYY   Y..   Y..   ...   ...   ...   ...   ...   ...   ..."),
        ("device.manage oneself's", /*          */ "YYY   YYY   YYY   YYY   YYY   YYY   YYY   YYY   YYY   YYY"),
        ("device.manage another's", /*          */ "...   ...   ...   ...   ...   ...   ...   ...   ...   ..."),
        ("shift.clock oneself", /*              */ "...   YY.   YY.   YY.   ...   ...   ...   ...   ...   ..."),
        ("shift.clock staff", /*                */ "YYY   Y..   Y..   ...   ...   ...   ...   ...   ...   ..."),
        ("shift.clock a manager", /*            */ "YYY   Y..   ...   ...   ...   ...   ...   ...   ...   ..."),
        ("receipt.see another's", /*            */ "YYY   Y..   Y..   ...   ...   ...   ...   ...   YYY   ..."),
        ("receipt.see of own payment", /*       */ "YYY   Y..   Y..   Y..   ...   ...   ...   ...   YYY   ..."),
        ("refund another's payment", /*         */ "YYY   Y..   Y..   ...   ...   ...   ...   ...   ...   ..."),
        ("refund own payment within limit", /*  */ "YYY   Y..   Y..   Y..   ...   ...   ...   ...   ...   ..."),
        ("refund own payment over limit", /*    */ "YYY   Y..   Y..   ...   ...   ...   ...   ...   ...   ..."),
        ("cancel refunding within limit", /*    */ "YYY   Y..   Y..   Y..   ...   ...   YYY   YYY   ...   ..."),
        ("cancel refunding over limit", /*      */ "YYY   Y..   Y..   ...   ...   ...   YYY   YYY   ...   ..."),
        ("cancel refunding own order", /*       */ "YYY   Y..   Y..   ...   ...   YYY   YYY   YYY   ...   ..."),
        ("ledger.courier's entry whole", /*     */ "YYY   ...   ...   ...   ...   ...   ...   ...   YYY   ..."),
    ]

    static let store = StoreID()
    static let otherStore = StoreID()
    static let someone = UserID()

    static func principal(_ role: Role, _ scope: Scope) -> Principal {
        let storeID: StoreID? =
            switch scope {
            case .sameStore: store
            case .otherStore: otherStore
            case .noStore: nil
            }
        return Principal(userID: UserID(), role: role, storeID: storeID, onDuty: role == .courier)
    }

    static func user(_ role: Role, id: UserID = UserID(), store: StoreID? = Self.store) -> User {
        User(
            id: id, email: "\(role.rawValue)@example.com", name: "N", phone: nil, role: role,
            storeID: role.isStoreRole ? store : nil, staffRole: nil, active: true, onDuty: false, version: 1,
            createdAt: Date(), updatedAt: Date())
    }

    static func order(
        _ status: OrderStatus, _ fulfillment: Fulfillment = .delivery, courier: UserID? = nil,
        createdBy: UserID = someone, workflow: OrderWorkflow = .standard
    ) throws -> Order {
        let draft = try OrderDraft(
            workflow: workflow, fulfillment: fulfillment, recipientFirstName: "A", recipientLastName: "B",
            phone: "050 1234567",
            street: "Herzl", buildingNo: "12", floor: "3", apartment: "7", city: "Tel Aviv", boxesCount: 1
        ).validated()
        var order = Order(
            id: OrderID(), number: 1, storeID: store, status: status, version: 1, draft: draft,
            pickupAddress: nil, quote: DeliveryQuote(fee: 3500, multiplier: 1), currency: .ils, createdBy: createdBy,
            createdAt: Date())
        order.courierID = courier
        return order
    }

    /// Whether `principal` may do `operation`, asked of the policy.
    static func decide(_ operation: String, _ principal: Principal) throws -> Bool {
        let policy = AccessPolicy(principal)
        let me = principal.userID
        let payment = Payment(
            id: PaymentID(), storeID: store, orderID: nil, subtotal: 100, tip: 0, currency: .ils, method: .cash,
            status: .completed, staffID: someone, createdAt: Date())
        let receipt = Receipt(
            id: ReceiptID(), number: 1, storeID: store, paymentID: payment.id, orderID: nil, subtotal: 100, tip: 0,
            total: 100, currency: .ils, method: .cash, staffID: someone, issuedAt: Date(), text: "")
        switch operation {
        case "store.see": return policy.canSee(store: store)
        case "store.open": return policy.canOpenStores
        case "user.close own account": return policy.closerOfOwnAccount == nil
        case "store.set terms": return policy.canSetStoreTerms
        case "store.change": return policy.canChange(store: store)
        case "store.list shows it": return policy.visibleStores.contains(store)
        case "store.see internals": return policy.canSeeInternals(of: store)
        case "user.see another of the store": return policy.canSee(user: user(.staff))
        case "user.see oneself": return policy.canSee(user: user(principal.role, id: me, store: principal.storeID))
        case "user.create owner": return policy.canCreate(.owner, in: store)
        case "user.create manager": return policy.canCreate(.manager, in: store)
        case "user.create staff": return policy.canCreate(.staff, in: store)
        case "user.create courier": return policy.canCreate(.courier, in: nil)
        case "user.manage staff": return policy.canManage(user(.staff))
        case "user.manage manager": return policy.canManage(user(.manager))
        case "user.manage oneself": return policy.canManage(user(principal.role, id: me, store: principal.storeID))
        case "user.change role of staff": return policy.canChangeRole(of: user(.staff))
        case "user.edit profile of staff": return policy.canEditProfile(of: user(.staff))
        case "user.edit own profile":
            return policy.canEditProfile(of: user(principal.role, id: me, store: principal.storeID))
        case "user.list the store's":
            let visible = try? policy.visibleUsers(store: store)
            return visible.map { $0.stores.contains(store) && $0.role == nil } ?? false
        case "user.list couriers", "user.list customers":
            let role: Role = operation.hasSuffix("couriers") ? .courier : .customer
            let visible = try? policy.visibleUsers(store: nil, role: role)
            return visible.map { $0.stores == .every && $0.role == role } ?? false
        case "user.see a courier": return policy.canSee(user: user(.courier))
        case "user.see a customer": return policy.canSee(user: user(.customer))
        case "user.create platform staff":
            return [Role.supervisor, .support, .accountant, .socialMedia].allSatisfy { policy.canCreate($0, in: nil) }
        case "notifications.tend a customer's": return policy.canTendNotifications(of: someone, role: .customer)
        case "notifications.tend a courier's": return policy.canTendNotifications(of: someone, role: .courier)
        case "store.edit public profile": return policy.canEditPublicProfile(of: store)
        case "product.edit texts": return policy.canEditProductTexts(of: store)
        case "payment.list the store's": return policy.canSeePayments(of: store)
        case "customer and card.see": return policy.canSeeCustomers(of: store)
        case "user.list colleagues": return policy.canListColleagues(in: store)
        case "courier.go on duty": return policy.canGoOnDuty
        case "applications.review": return policy.canReviewApplications
        case "address.keep": return (try? policy.addressOwner()) == me
        case "order.see pending": return policy.canSee(order: try order(.pending))
        case "order.see in the pool": return policy.canSee(order: try order(.accepted))
        case "order.see carried by the caller": return policy.canSee(order: try order(.ready, courier: me))
        case "order.see created by the caller": return policy.canSee(order: try order(.pending, createdBy: me))
        case "order.list shows the pool": return policy.visibleOrders(store: nil).contains(try order(.accepted))
        case "order.create in the store", "payment.record in the store":
            return (try? policy.storeForWriting(store)) == store
        case "order.check out": return (try? policy.checkCheckout()) != nil
        case "order.pay own card order", "order.pay another's card order":
            var card = try order(.pending, createdBy: operation.contains("own") ? me : someone)
            card.customerID = card.createdBy
            card.paymentMethod = .card
            return policy.canPay(card)
        case "order.store notes shown":
            var noted = try order(.pending, createdBy: me)
            noted.notes = "ring twice"
            return policy.present(noted).notes != nil
        case "action.accept unpaid card order", "action.accept paid card order":
            var card = try order(.pending)
            card.paymentMethod = .card
            card.total = 1000
            if operation.contains("paid card") && !operation.contains("unpaid") { card.setPaid(1000, anyPayment: true) }
            return policy.allowedActions(on: card).contains(.accept)
        case "order.edit fields": return (try? policy.checkEdit(try order(.accepted))) != nil
        case "order.edit items and prices": return (try? policy.checkEdit(try order(.accepted), money: true)) != nil
        case "order.state cash collected":
            return policy.mayStateCash(
                for: try order(.outForDelivery, courier: principal.role == .courier ? me : someone))
        case "order.edit when delivered": return policy.canEdit(try order(.delivered, courier: someone))
        case "action.accept": return policy.allowedActions(on: try order(.pending)).contains(.accept)
        case "action.cancel": return policy.allowedActions(on: try order(.pending)).contains(.cancel)
        case "action.cancel own pending order":
            return policy.allowedActions(on: try order(.pending, createdBy: me)).contains(.cancel)
        case "action.claim": return policy.allowedActions(on: try order(.accepted)).contains(.claim)
        case "action.pick_up carried order":
            return policy.allowedActions(on: try order(.ready, courier: me)).contains(.pickUp)
        case "action.mark_collected":
            return policy.allowedActions(on: try order(.ready, .pickup)).contains(.markCollected)
        case "pool.list alone": return (try? policy.checkPoolListing()) != nil
        case "courier.earnings": return policy.hasEarnings
        case "product.see": return policy.canSeeProducts(of: store)
        case "product.change": return policy.canChangeProducts(of: store)
        case "stock.reserve": return policy.canReserveStock(of: store)
        case "stock.reserve for a checkout": return policy.canReserveStock(of: store, forAnOrder: true)
        case "menu.see": return policy.canSeeMenu(of: store)
        case "payment.see": return policy.canSee(payment: payment)
        case "payment.see made out to them":
            var theirs = payment
            theirs.customerUserID = me
            return policy.canSee(payment: theirs)
        case "payment.take in the store": return policy.canTakePayments(in: store)
        case "takings.see": return policy.canSeeTakings(of: store)
        case "customer and card.keep": return policy.canKeepCustomers(of: store)
        case "customer.delete": return policy.canDeleteCustomers(of: store)
        case "activity.see": return policy.canSeeActivity(of: store)
        case "webhooks.manage": return policy.canManageWebhooks(of: store)
        case "device.manage oneself's": return policy.canManageDevice(of: me)
        case "device.manage another's": return policy.canManageDevice(of: someone)
        case "shift.clock oneself": return policy.canClock(user: me, role: principal.role, store: principal.storeID)
        case "shift.clock staff": return policy.canClock(user: someone, role: .staff, store: store)
        case "shift.clock a manager": return policy.canClock(user: someone, role: .manager, store: store)
        case "receipt.see another's": return policy.canSee(receipt: receipt, ofPaymentTakenBy: someone)
        case "receipt.see of own payment": return policy.canSee(receipt: receipt, ofPaymentTakenBy: me)
        case "refund another's payment": return policy.canRefund(payment, amount: 100, staffLimit: 1000)
        case "refund own payment within limit":
            var theirs = payment
            theirs.staffID = me
            return policy.canRefund(theirs, amount: 1000, staffLimit: 1000)
        case "refund own payment over limit":
            var theirs = payment
            theirs.staffID = me
            return policy.canRefund(theirs, amount: 1001, staffLimit: 1000)
        case "cancel refunding within limit":
            return policy.mayRefundByCancelling(try order(.pending), amount: 1000, staffLimit: 1000)
        case "cancel refunding over limit":
            return policy.mayRefundByCancelling(try order(.pending), amount: 1001, staffLimit: 1000)
        case "cancel refunding own order":
            return policy.mayRefundByCancelling(try order(.pending, createdBy: me), amount: 1000, staffLimit: 0)
        case "ledger.courier's entry whole":
            let delivery = LedgerEntry(
                kind: .delivery, reference: "delivery:1", currency: .ils,
                postings: [LedgerPosting(.store(store), -3500), LedgerPosting(.courier(someone), 3500)], storeID: store,
                courierID: someone, commission: 0, at: Date())
            let presented = policy.present(delivery, of: .courier(someone))
            return presented.postings.count == 2 && presented.commission == 0
        default: throw UnknownOperation(name: operation)
        }
    }

    struct UnknownOperation: Error {
        var name: String
    }

    @Test("every role, in the store, in another and in none, against every operation")
    func table() throws {
        var checked = 0
        for (operation, expected) in Self.table {
            let cells = Array(expected.filter { $0 != " " })
            try #require(cells.count == Self.roles.count * Scope.allCases.count, "row \(operation)")
            for (roleIndex, role) in Self.roles.enumerated() {
                for (scopeIndex, scope) in Scope.allCases.enumerated() {
                    let allowed = cells[roleIndex * 3 + scopeIndex] == "Y"
                    let decided = try Self.decide(operation, Self.principal(role, scope))
                    #expect(decided == allowed, "\(operation): \(role.rawValue) \(scope) should be \(allowed)")
                    checked += 1
                }
            }
        }
        #expect(checked == Self.table.count * Self.roles.count * Scope.allCases.count)
    }

    @Test("a courier reads their own postings of an entry, without the store's account or the commission")
    func courierEntries() {
        let courier = Principal(userID: Self.someone, role: .courier, storeID: nil, onDuty: true)
        let payment = LedgerEntry(
            kind: .payment, reference: "payment:1", currency: .ils,
            postings: [
                LedgerPosting(.courierCash(Self.someone), -6500), LedgerPosting(.store(Self.store), 5850),
                LedgerPosting(.platformCommission, 650),
            ],
            storeID: Self.store, courierID: Self.someone, commission: 650, at: Date())
        let presented = AccessPolicy(courier).present(payment, of: .courier(Self.someone))
        #expect(presented.postings == [LedgerPosting(.courierCash(Self.someone), -6500)])
        #expect(presented.commission == nil)
        // A store's owner reads their store's entries whole, commission included.
        let owner = Principal(userID: UserID(), role: .owner, storeID: Self.store)
        #expect(AccessPolicy(owner).present(payment, of: .store(Self.store)) == payment)
    }

    @Test("an off-duty courier sees no pool, only what they carry")
    func offDutyCourier() throws {
        let resting = Principal(userID: UserID(), role: .courier, storeID: nil, onDuty: false)
        let policy = AccessPolicy(resting)
        #expect(!policy.canSee(order: try Self.order(.accepted)))
        #expect(!policy.visibleOrders(store: nil).contains(try Self.order(.accepted)))
        #expect(policy.canSee(order: try Self.order(.outForDelivery, courier: resting.userID)))
        #expect(policy.visibleOrders(store: nil) == .courier(resting.userID, pool: false))
    }

    @Test("the pool is unclaimed standard delivery orders that are accepted, preparing or ready; never a repair")
    func pool() throws {
        for status in OrderStatus.allCases {
            let claimable = [.accepted, .preparing, .ready].contains(status)
            #expect(try Self.order(status).isInPool == claimable, "\(status)")
            #expect(try !Self.order(status, .pickup).isInPool)
            #expect(try !Self.order(status, courier: UserID()).isInPool)
            #expect(try !Self.order(status, workflow: .repair).isInPool, "a repair, \(status)")
            for workflow in [nil, OrderWorkflow.standard] {
                #expect(
                    OrderPool.contains(workflow: workflow, fulfillment: .delivery, courierID: nil, status: status)
                        == claimable)
            }
            #expect(!OrderPool.contains(workflow: .repair, fulfillment: .delivery, courierID: nil, status: status))
        }
    }

    @Test("a list covers exactly the orders the caller may see, whoever asks")
    func listsAgreeWithSight() throws {
        let callers = Self.roles.flatMap { role in Scope.allCases.map { Self.principal(role, $0) } }
        for principal in callers {
            let policy = AccessPolicy(principal)
            let orders = try OrderStatus.allCases.flatMap { status in
                try [
                    Self.order(status), Self.order(status, .pickup), Self.order(status, courier: principal.userID),
                    Self.order(status, courier: Self.someone), Self.order(status, createdBy: principal.userID),
                ]
            }
            for order in orders {
                #expect(
                    policy.visibleOrders(store: nil).contains(order) == policy.canSee(order: order),
                    "\(principal.role) \(principal.storeID == Self.store ? "same" : "other") on \(order.status)")
            }
        }
    }

    @Test("a courier who has not claimed an order sees it without the recipient's phone and apartment")
    func courierRedaction() throws {
        let courier = Principal(userID: UserID(), role: .courier, storeID: nil, onDuty: true)
        let policy = AccessPolicy(courier)
        let pooled = policy.present(try Self.order(.accepted))
        #expect(pooled.phone == nil && pooled.apartment == nil)
        #expect(pooled.deliveryAddress == "Herzl 12, floor 3, Tel Aviv")
        #expect(pooled.allowedActions == [.claim] && pooled.canEdit == false)
        let carried = policy.present(try Self.order(.ready, courier: courier.userID))
        #expect(carried.phone == "050 1234567" && carried.apartment == "7")
        #expect(carried.deliveryAddress == "Herzl 12, floor 3, apt. 7, Tel Aviv")
        let staff = AccessPolicy(Self.principal(.staff, .sameStore)).present(try Self.order(.accepted))
        #expect(staff.phone == "050 1234567" && staff.canEdit == true)
    }

    @Test("an edit of another store's order is as if it did not exist; a courier's is 403; a locked order's 422")
    func editRefusals() throws {
        func refusal(_ principal: Principal, _ order: Order) -> OrderlyError? {
            do {
                try AccessPolicy(principal).checkEdit(order)
                return nil
            } catch {
                return error
            }
        }
        let accepted = try Self.order(.accepted)
        #expect(refusal(Self.principal(.owner, .otherStore), accepted)?.code == .notFound)
        #expect(refusal(Self.principal(.manager, .noStore), accepted)?.code == .notFound)
        let carrier = Principal(userID: UserID(), role: .courier, storeID: nil, onDuty: true)
        #expect(refusal(carrier, try Self.order(.ready, courier: carrier.userID))?.code == .permissionDenied)
        #expect(refusal(Self.principal(.staff, .sameStore), try Self.order(.delivered))?.reason == .orderLocked)
        #expect(refusal(Self.principal(.staff, .sameStore), accepted) == nil)
    }

    @Test("the social-media staff change a store's public profile and products' texts, nothing else")
    func profileChanges() throws {
        let social = AccessPolicy(Self.principal(.socialMedia, .noStore))
        let owner = AccessPolicy(Self.principal(.owner, .sameStore))
        let now = Date.currentMillisecond
        let store = Store(
            id: Self.store, name: "Falafel Levi", tier: .free, address: nil, phone: nil, currency: .ils,
            timezone: "Asia/Jerusalem", vatRates: .standard, deliveryPricing: .standard, lowStockDefault: 5,
            version: 1, createdAt: now, updatedAt: now)
        var profile = store
        profile.description = "Since 1962"
        profile.cuisine = "falafel"
        profile.imageURL = "https://example.com/levi.jpg"
        #expect(throws: Never.self) { try social.checkChange(from: store, to: profile) }
        var priced = profile
        priced.minimumOrder = 5000
        #expect(throws: OrderlyError.self) { try social.checkChange(from: store, to: priced) }
        #expect(throws: Never.self) { try owner.checkChange(from: store, to: priced) }
        #expect(throws: OrderlyError.self) {
            try AccessPolicy(Self.principal(.supervisor, .noStore)).checkChange(from: store, to: profile)
        }

        let product = Product(
            id: ProductID(), storeID: Self.store, name: "Falafel", price: 2500, currency: .ils, vatRateBP: 1800,
            trackStock: true, lowStockThreshold: 1, createdAt: now, updatedAt: now)
        var renamed = product
        renamed.name = "Falafel in pita"
        renamed.description = "With tahini"
        renamed.imageURL = "https://example.com/pita.jpg"
        #expect(throws: Never.self) { try social.checkChange(from: product, to: renamed) }
        var repriced = renamed
        repriced.price = 100
        #expect(throws: OrderlyError.self) { try social.checkChange(from: product, to: repriced) }
        #expect(throws: Never.self) { try owner.checkChange(from: product, to: repriced) }
    }
}
