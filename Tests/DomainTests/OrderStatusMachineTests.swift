import Domain
import Foundation
import Testing

@Suite("Order status machine")
struct OrderStatusMachineTests {
    static let store = StoreID()
    static let courierA = UserID()
    static let creator = UserID()

    enum Caller: CaseIterable {
        case admin, owner, manager, staff, otherStoreStaff, courierA, courierB, creator, otherCustomer
        case supervisor, support, accountant, socialMedia

        var principal: Principal {
            switch self {
            case .admin: return Principal(userID: UserID(), role: .admin, storeID: nil)
            case .owner: return Principal(userID: UserID(), role: .owner, storeID: store)
            case .manager: return Principal(userID: UserID(), role: .manager, storeID: store)
            case .staff: return Principal(userID: UserID(), role: .staff, storeID: store)
            case .otherStoreStaff: return Principal(userID: UserID(), role: .staff, storeID: StoreID())
            case .courierA:
                return Principal(userID: OrderStatusMachineTests.courierA, role: .courier, storeID: nil, onDuty: true)
            case .courierB: return Principal(userID: UserID(), role: .courier, storeID: nil, onDuty: true)
            case .creator: return Principal(userID: OrderStatusMachineTests.creator, role: .customer, storeID: nil)
            case .otherCustomer: return Principal(userID: UserID(), role: .customer, storeID: nil)
            case .supervisor: return Principal(userID: UserID(), role: .supervisor, storeID: nil)
            case .support: return Principal(userID: UserID(), role: .support, storeID: nil)
            case .accountant: return Principal(userID: UserID(), role: .accountant, storeID: nil)
            case .socialMedia: return Principal(userID: UserID(), role: .socialMedia, storeID: nil)
            }
        }
    }

    static func order(
        _ status: OrderStatus, _ fulfillment: Fulfillment, courier: UserID?, workflow: OrderWorkflow = .standard
    ) throws -> Order {
        let draft = try OrderDraft(
            workflow: workflow, fulfillment: fulfillment, recipientFirstName: "A", recipientLastName: "B",
            phone: "050 1234567",
            street: "S", buildingNo: "1", boxesCount: 1
        ).validated()
        var order = Order(
            id: OrderID(), number: 1, storeID: store, status: status, version: 1,
            draft: draft, pickupAddress: nil, quote: DeliveryQuote(fee: 3500, multiplier: 1), currency: .ils,
            createdBy: creator, createdAt: Date())
        order.courierID = courier
        return order
    }

    /// The status machine's rules written out as a table: what each caller may do in each state.
    static func expected(
        _ caller: Caller, _ status: OrderStatus, _ fulfillment: Fulfillment, claimed: Bool,
        workflow: OrderWorkflow = .standard
    ) -> [OrderAction] {
        let store: [OrderAction]
        let repair = workflow == .repair
        switch status {
        case .pending: store = [.accept, .cancel]
        case .accepted: store = [.startPreparing, .cancel]
        case .preparing: store = [.markReady, .cancel]
        case .bookedIn: store = [.startRepair, .awaitParts, .cancel]
        case .awaitingParts: store = [.startRepair, .cancel]
        case .inRepair: store = [.awaitParts, .markReady, .cancel]
        case .ready where repair:
            store = fulfillment == .pickup ? [.markCollected, .cancel] : [.markCollected, .despatch, .cancel]
        case .ready: store = fulfillment == .pickup ? [.markCollected, .cancel] : [.cancel]
        case .outForDelivery, .delivered, .collected, .despatched, .cancelled: store = []
        }
        // No courier carries a repair.
        let open: Set<OrderStatus> = repair ? [] : [.accepted, .preparing, .ready]
        var carrier: [OrderAction] = []
        if claimed, open.contains(status) { carrier.append(.release) }
        if claimed, status == .ready { carrier.append(.pickUp) }
        if status == .outForDelivery { carrier.append(.deliver) }
        switch caller {
        case .owner, .manager, .staff: return store
        case .admin, .supervisor: return OrderAction.allCases.filter { store.contains($0) || carrier.contains($0) }
        case .support: return store.filter { $0 == .cancel }
        case .courierA where claimed: return carrier
        case .courierA, .courierB:
            return !claimed && fulfillment == .delivery && open.contains(status) ? [.claim] : []
        case .creator: return status == .pending ? [.cancel] : []
        case .otherStoreStaff, .otherCustomer, .accountant, .socialMedia: return []
        }
    }

    @Test("every (state, action, caller): allowed exactly as the rules say, with the right outcome")
    func everyCombination() throws {
        var checked = 0
        var cases = 0
        for workflow in OrderWorkflow.allCases {
            for status in workflow.statuses {
                for fulfillment in Fulfillment.allCases {
                    // A courier claims only a standard delivery.
                    for claimed in fulfillment == .delivery && workflow == .standard ? [false, true] : [false] {
                        cases += 1
                        checked += try check(status, fulfillment, claimed: claimed, workflow: workflow)
                    }
                }
            }
        }
        #expect(cases == 8 * 3 + 7 * 2)
        #expect(checked == cases * Caller.allCases.count * OrderAction.allCases.count)
    }

    /// Checks every caller's every action on one order; answers how many it checked.
    func check(_ status: OrderStatus, _ fulfillment: Fulfillment, claimed: Bool, workflow: OrderWorkflow) throws
        -> Int
    {
        var checked = 0
        let order = try Self.order(status, fulfillment, courier: claimed ? Self.courierA : nil, workflow: workflow)
        for caller in Caller.allCases {
            let principal = caller.principal
            let allowed = Self.expected(caller, status, fulfillment, claimed: claimed, workflow: workflow)
            let policy = AccessPolicy(principal)
            #expect(
                policy.allowedActions(on: order) == allowed,
                "\(caller) on a \(claimed ? "claimed " : "")\(workflow) \(fulfillment) order, \(status)")
            for action in OrderAction.allCases {
                checked += 1
                switch policy.transition(action, on: order) {
                case .success(let transition):
                    #expect(allowed.contains(action), "\(caller) \(action) on \(status)")
                    #expect(transition.from == status)
                    #expect(transition.to == Self.target(of: action, from: status))
                    let courier: UserID? =
                        action == .claim ? principal.userID : action == .release ? nil : order.courierID
                    #expect(transition.courierID == courier)
                case .failure(.illegal(_, _, let legal)):
                    #expect(!allowed.contains(action))
                    #expect(legal == allowed)
                case .failure(.notPermitted), .failure(.alreadyClaimed), .failure(.unseen),
                    .failure(.carryingEnough),
                    .failure(.releasedEnough), .failure(.paymentRequired):
                    #expect(!allowed.contains(action))
                case .failure(.offDuty):
                    Issue.record("a courier on duty was refused as off duty")
                }
            }
        }
        return checked
    }

    static func target(of action: OrderAction, from status: OrderStatus) -> OrderStatus {
        switch action {
        case .accept: return .accepted
        case .startPreparing: return .preparing
        case .startRepair: return .inRepair
        case .awaitParts: return .awaitingParts
        case .markReady: return .ready
        case .markCollected: return .collected
        case .despatch: return .despatched
        case .cancel: return .cancelled
        case .claim, .release: return status
        case .pickUp: return .outForDelivery
        case .deliver: return .delivered
        }
    }

    @Test("refusals say why: 403 for someone who may never, 422 with the legal actions otherwise")
    func refusals() throws {
        let order = try Self.order(.delivered, .delivery, courier: Self.courierA)
        let staff = AccessPolicy(Caller.staff.principal)
        #expect(staff.transition(.claim, on: order) == .failure(.notPermitted(.claim, .staff)))
        let refusal = OrderActionRefusal.illegal(.cancel, .delivered, allowed: [])
        #expect(staff.transition(.cancel, on: order) == .failure(refusal))
        #expect(refusal.error.code == .failedPrecondition && refusal.error.details?["allowed_actions"] == .array([]))
        let pending = try Self.order(.pending, .delivery, courier: nil)
        let illegal = staff.transition(.markReady, on: pending)
        #expect(illegal == .failure(.illegal(.markReady, .pending, allowed: [.accept, .cancel])))
    }

    @Test("a claim is decided in one place: on duty, in the pool, or why not")
    func claimRule() throws {
        let policy = AccessPolicy(Caller.courierB.principal)
        let pool = try Self.order(.ready, .delivery, courier: nil)
        let claimed = try policy.claim(pool).get()
        #expect(claimed.from == .ready && claimed.to == .ready && claimed.courierID == policy.principal.userID)
        // Claimed by another while still claimable: the loser learns it was taken (409).
        let taken = try Self.order(.preparing, .delivery, courier: Self.courierA)
        #expect(policy.claim(taken) == .failure(.alreadyClaimed))
        #expect(OrderActionRefusal.alreadyClaimed.error.code == .conflict)
        // Out of the pool and not theirs: as if it did not exist.
        for order in [
            try Self.order(.ready, .pickup, courier: nil), try Self.order(.pending, .delivery, courier: nil),
            try Self.order(.outForDelivery, .delivery, courier: Self.courierA),
        ] {
            #expect(policy.claim(order) == .failure(.unseen(order.id)))
            #expect(OrderActionRefusal.unseen(order.id).error.code == .notFound)
        }
        // The courier carrying it is told what they can do instead.
        let carried = try Self.order(.accepted, .delivery, courier: Self.courierA)
        #expect(
            AccessPolicy(Caller.courierA.principal).claim(carried)
                == .failure(.illegal(.claim, .accepted, allowed: [.release])))
        // Nobody but a courier claims; those who see the order are told so, others not.
        #expect(AccessPolicy(Caller.admin.principal).claim(pool) == .failure(.notPermitted(.claim, .admin)))
        #expect(AccessPolicy(Caller.staff.principal).claim(pool) == .failure(.notPermitted(.claim, .staff)))
        #expect(AccessPolicy(Caller.otherStoreStaff.principal).claim(pool) == .failure(.unseen(pool.id)))
    }

    @Test("a courier off duty is offered no claim, and a claim is refused with 422 off_duty")
    func offDuty() throws {
        let accepted = try Self.order(.accepted, .delivery, courier: nil)
        var resting = Caller.courierB.principal
        resting.onDuty = false
        let policy = AccessPolicy(resting)
        #expect(policy.allowedActions(on: accepted).isEmpty)
        #expect(policy.transition(.claim, on: accepted) == .failure(.offDuty))
        #expect(OrderActionRefusal.offDuty.error.code == .failedPrecondition)
        #expect(OrderActionRefusal.offDuty.error.reason == .offDuty)
        // The order a courier carries stays theirs to move on, on duty or not.
        var carrying = Caller.courierA.principal
        carrying.onDuty = false
        let ready = try Self.order(.ready, .delivery, courier: Self.courierA)
        #expect(AccessPolicy(carrying).allowedActions(on: ready) == [.release, .pickUp])
    }
}
