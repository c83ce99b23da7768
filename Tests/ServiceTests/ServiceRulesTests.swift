import Contracts
import Domain
import Events
import Foundation
import JSON
import Redis
import Storage
import TestSupport
import Testing
import Wire

/// The services' rules at their Wire methods, called in-process through their routers with the
/// principal the gateway would state: what each service decides by itself, whoever calls it.
@Suite("Service rules", .serialized)
struct ServiceRulesTests {
    static let admin = Principal(userID: UserID(), role: .admin, storeID: nil)

    static func options(_ principal: Principal, key: String? = nil) -> WireCallOptions {
        WireCallOptions(principal: principal, idempotencyKey: key)
    }

    static func store(_ suite: InProcessSuite, _ name: String) async throws -> Store {
        try await suite.catalog.call(
            CatalogAPI.createStore, StoreDraft(name: name, address: "Allenby 1"), options: options(admin))
    }

    static func order(_ suite: InProcessSuite, by principal: Principal) async throws -> Order {
        let draft = OrderDraft(
            recipientFirstName: "Dana", recipientLastName: "Levi", phone: "050-1234567", street: "Herzl",
            buildingNo: "12", apartment: "7", boxesCount: 2)
        return try await suite.orders.call(
            OrdersAPI.createOrder, draft, options: options(principal, key: UUID().uuidString))
    }

    /// The error a call fails with.
    static func refusal(_ call: () async throws -> Void) async -> OrderlyError? {
        do {
            try await call()
            return nil
        } catch {
            return error as? OrderlyError
        }
    }

    @Test("the orders service shows couriers on duty the pool only, without phone and apartment until claimed")
    func courierPool() async throws {
        try await InProcessSuite.with { suite in
            let store = try await Self.store(suite, "A")
            let staff = Principal(userID: UserID(), role: .staff, storeID: store.id)
            let onDuty = Principal(userID: UserID(), role: .courier, storeID: nil, onDuty: true)
            var offDuty = onDuty
            offDuty.onDuty = false
            let order = try await Self.order(suite, by: staff)
            #expect(order.canEdit == true && order.allowedActions == [.accept, .cancel])
            let get = ResourceRef(id: order.id)

            // Pending: in nobody's pool.
            #expect(
                await Self.refusal {
                    _ = try await suite.orders.call(OrdersAPI.getOrder, get, options: Self.options(onDuty))
                }?
                .code == .notFound)
            _ = try await suite.orders.call(
                OrdersAPI.performAction, OrderActionRequest(id: order.id, action: .accept), options: Self.options(staff)
            )

            // Accepted: in the pool of couriers on duty, redacted; not in an off-duty courier's.
            let seen = try await suite.orders.call(OrdersAPI.getOrder, get, options: Self.options(onDuty))
            #expect(seen.phone == nil && seen.apartment == nil && seen.deliveryAddress == "Herzl 12")
            #expect(seen.allowedActions == [.claim] && seen.canEdit == false)
            let pool = try await suite.orders.call(
                OrdersAPI.listOrders, OrderListRequest(available: true), options: Self.options(onDuty))
            #expect(pool.data.map(\.id) == [order.id] && pool.data.first?.phone == nil)
            let feed = try await suite.orders.call(
                OrdersAPI.changes, OrderChangesRequest(since: "0"), options: Self.options(onDuty))
            #expect(feed.data.map(\.id) == [order.id] && feed.data.first?.apartment == nil)
            #expect(
                await Self.refusal {
                    _ = try await suite.orders.call(OrdersAPI.getOrder, get, options: Self.options(offDuty))
                }?
                .code == .notFound)
            let resting = await Self.refusal {
                _ = try await suite.orders.call(
                    OrdersAPI.listOrders, OrderListRequest(available: true), options: Self.options(offDuty))
            }
            #expect(resting?.reason == .offDuty)
            let restingClaim = await Self.refusal {
                _ = try await suite.orders.call(
                    OrdersAPI.performAction, OrderActionRequest(id: order.id, action: .claim),
                    options: Self.options(offDuty))
            }
            #expect(restingClaim?.reason == .offDuty)
            let edit = await Self.refusal {
                _ = try await suite.orders.call(
                    OrdersAPI.updateOrder,
                    OrderPatch(id: order.id, expectedVersion: nil, changes: OrderDraft(notes: "x")),
                    options: Self.options(onDuty))
            }
            #expect(edit?.code == .permissionDenied)

            // Claimed: the courier sees it whole, on duty or off.
            let claimed = try await suite.orders.call(
                OrdersAPI.performAction, OrderActionRequest(id: order.id, action: .claim), options: Self.options(onDuty)
            )
            #expect(claimed.phone == "050-1234567" && claimed.apartment == "7" && claimed.allowedActions == [.release])
            let carried = try await suite.orders.call(OrdersAPI.getOrder, get, options: Self.options(offDuty))
            #expect(carried.phone == "050-1234567")
            let other = Principal(userID: UserID(), role: .courier, storeID: nil, onDuty: true)
            #expect(
                await Self.refusal {
                    _ = try await suite.orders.call(OrdersAPI.getOrder, get, options: Self.options(other))
                }?
                .code == .notFound)
        }
    }

    @Test("a courier finds no phone they may not see, learns of an order they released, and reuses no one's key")
    func courierEdges() async throws {
        try await InProcessSuite.with { suite in
            let store = try await Self.store(suite, "A")
            let other = try await Self.store(suite, "B")
            let staff = Principal(userID: UserID(), role: .staff, storeID: store.id)
            let first = Principal(userID: UserID(), role: .courier, storeID: nil, onDuty: true)
            let second = Principal(userID: UserID(), role: .courier, storeID: nil, onDuty: true)
            let order = try await Self.order(suite, by: staff)
            _ = try await suite.orders.call(
                OrdersAPI.performAction, OrderActionRequest(id: order.id, action: .accept), options: Self.options(staff)
            )
            func search(_ q: String, by courier: Principal, store: StoreID? = nil) async throws -> [OrderID] {
                try await suite.orders.call(
                    OrdersAPI.listOrders, OrderListRequest(storeID: store, search: q), options: Self.options(courier)
                ).data.map(\.id)
            }
            // The phone's digits find the order only for the courier who carries it.
            #expect(try await search("050-1234567", by: first).isEmpty)
            #expect(try await search("0501", by: first).isEmpty)
            #expect(try await search("levi", by: first) == [order.id])
            #expect(try await search("#\(order.number)", by: first) == [order.id])
            #expect(try await search("levi", by: first, store: other.id).isEmpty)

            // The first courier claims with a key; the second, sending the same key and body, is
            // not answered with the first one's order but refused for themself.
            let claim = OrderActionRequest(id: order.id, action: .claim)
            let claimed = try await suite.orders.call(
                OrdersAPI.performAction, claim, options: Self.options(first, key: "claim-1"))
            #expect(claimed.courierID == first.userID)
            let raced = await Self.refusal {
                _ = try await suite.orders.call(
                    OrdersAPI.performAction, claim, options: Self.options(second, key: "claim-1"))
            }
            #expect(raced?.reason == .alreadyClaimed)
            #expect(try await search("050-1234567", by: first) == [order.id])

            // Released while off duty, the order leaves the first courier's feed as removed.
            let mark = try await suite.orders.call(
                OrdersAPI.changes, OrderChangesRequest(since: "0"), options: Self.options(first)
            ).nextCursor
            var resting = first
            resting.onDuty = false
            _ = try await suite.orders.call(
                OrdersAPI.performAction, OrderActionRequest(id: order.id, action: .release),
                options: Self.options(resting))
            let feed = try await suite.orders.call(
                OrdersAPI.changes, OrderChangesRequest(since: mark), options: Self.options(resting))
            #expect(feed.data.isEmpty && feed.removed == [order.id])

            // Repeating the first claim's key now answers with the order as it is, back in the
            // pool, not with the phone and apartment the claim once showed.
            let replayed = try await suite.orders.call(
                OrdersAPI.performAction, claim, options: Self.options(first, key: "claim-1"))
            #expect(replayed.courierID == nil && replayed.phone == nil && replayed.apartment == nil)
            #expect(replayed.version > claimed.version)

            // Once it left the pool for good, a claim by another courier finds nothing to race for.
            _ = try await suite.orders.call(
                OrdersAPI.performAction, claim, options: Self.options(first, key: "claim-2"))
            for action in [OrderAction.startPreparing, .markReady] {
                _ = try await suite.orders.call(
                    OrdersAPI.performAction, OrderActionRequest(id: order.id, action: action),
                    options: Self.options(staff))
            }
            _ = try await suite.orders.call(
                OrdersAPI.performAction, OrderActionRequest(id: order.id, action: .pickUp), options: Self.options(first)
            )
            let late = await Self.refusal {
                _ = try await suite.orders.call(OrdersAPI.performAction, claim, options: Self.options(second))
            }
            #expect(late?.code == .notFound)
        }
    }

    @Test("another store's owner or manager can neither see nor change an order, nor its items")
    func otherStoresOrders() async throws {
        try await InProcessSuite.with { suite in
            let store = try await Self.store(suite, "A")
            let otherStore = try await Self.store(suite, "B")
            let order = try await Self.order(suite, by: Principal(userID: UserID(), role: .staff, storeID: store.id))
            for role in [Role.owner, .manager, .staff] {
                let outsider = Principal(userID: UserID(), role: role, storeID: otherStore.id)
                let patch = OrderPatch(id: order.id, expectedVersion: nil, changes: OrderDraft(notes: "mine"))
                let items = ItemChange(
                    orderID: order.id, kind: .add,
                    item: OrderItemDraft(type: .repair, description: "x", unitPriceGross: 100))
                let action = OrderActionRequest(id: order.id, action: .accept)
                for refusal in [
                    await Self.refusal {
                        _ = try await suite.orders.call(OrdersAPI.updateOrder, patch, options: Self.options(outsider))
                    },
                    await Self.refusal {
                        _ = try await suite.orders.call(OrdersAPI.changeItems, items, options: Self.options(outsider))
                    },
                    await Self.refusal {
                        _ = try await suite.orders.call(
                            OrdersAPI.performAction, action, options: Self.options(outsider))
                    },
                ] {
                    #expect(refusal?.code == .notFound, "\(role)")
                }
            }
        }
    }

    @Test("the catalog lets owners and managers change their store, staff only read it, and nobody another's")
    func catalogAccess() async throws {
        try await InProcessSuite.with { suite in
            let store = try await Self.store(suite, "A")
            let other = try await Self.store(suite, "B")
            let patch = StorePatch(id: store.id, expectedVersion: nil, changes: StoreDraft(name: "Renamed"))
            for role in [Role.owner, .manager] {
                let runner = Principal(userID: UserID(), role: role, storeID: store.id)
                #expect(
                    try await suite.catalog.call(CatalogAPI.updateStore, patch, options: Self.options(runner)).name
                        == "Renamed")
            }
            let staff = Principal(userID: UserID(), role: .staff, storeID: store.id)
            #expect(
                try await suite.catalog.call(
                    CatalogAPI.getStore, ResourceRef(id: store.id), options: Self.options(staff)
                ).id == store.id)
            #expect(
                await Self.refusal {
                    _ = try await suite.catalog.call(CatalogAPI.updateStore, patch, options: Self.options(staff))
                }?
                .code == .permissionDenied)
            let outsider = Principal(userID: UserID(), role: .owner, storeID: other.id)
            #expect(
                await Self.refusal {
                    _ = try await suite.catalog.call(CatalogAPI.updateStore, patch, options: Self.options(outsider))
                }?
                .code == .notFound)
            let listed = try await suite.catalog.call(
                CatalogAPI.listStores, StoreListRequest(), options: Self.options(outsider))
            #expect(listed.data.map(\.id) == [other.id])
            let courier = Principal(userID: UserID(), role: .courier, storeID: nil)
            let everything = try await suite.catalog.call(
                CatalogAPI.listStores, StoreListRequest(), options: Self.options(courier))
            #expect(Set(everything.data.map(\.id)) == [store.id, other.id])
            #expect(
                await Self.refusal {
                    _ = try await suite.catalog.call(
                        CatalogAPI.createStore, StoreDraft(name: "C"), options: Self.options(staff))
                }?
                .code == .permissionDenied)
        }
    }

    @Test("payments and receipts are their store's: others are told they do not exist")
    func paymentAccess() async throws {
        try await InProcessSuite.with { suite in
            let store = try await Self.store(suite, "A")
            let other = try await Self.store(suite, "B")
            let staff = Principal(userID: UserID(), role: .staff, storeID: store.id)
            let pending = try await suite.payments.call(
                PaymentsAPI.createPayment,
                PaymentDraft(
                    items: [.init(name: "Coffee", unitPrice: 1000, quantity: 1, vatRateBP: 1700)], tip: 100,
                    method: .cash),
                options: Self.options(staff, key: "pay-1"))
            #expect(pending.storeID == store.id && pending.amount == 1100 && pending.status == .pending)
            _ = try await suite.payments.call(PaymentsAPI.clockIn, ClockRequest(), options: Self.options(staff))
            let payment = try await suite.payments.call(
                PaymentsAPI.confirmCash, CashConfirmation(paymentID: pending.id, amountTendered: 2000),
                options: Self.options(staff))
            #expect(payment.status == .completed && payment.changeDue == 900)
            let receipt = try #require(payment.receiptID)
            let owner = Principal(userID: UserID(), role: .owner, storeID: store.id)
            #expect(
                try await suite.payments.call(
                    PaymentsAPI.getReceipt, ResourceRef(id: receipt), options: Self.options(owner)
                ).number == 1)
            let outsider = Principal(userID: UserID(), role: .manager, storeID: other.id)
            #expect(
                await Self.refusal {
                    _ = try await suite.payments.call(
                        PaymentsAPI.getPayment, ResourceRef(id: payment.id), options: Self.options(outsider))
                }?
                .code == .notFound)
            #expect(
                await Self.refusal {
                    _ = try await suite.payments.call(
                        PaymentsAPI.getReceipt, ResourceRef(id: receipt), options: Self.options(outsider))
                }?
                .code == .notFound)
            let courier = Principal(userID: UserID(), role: .courier, storeID: nil, onDuty: true)
            #expect(
                await Self.refusal {
                    _ = try await suite.payments.call(
                        PaymentsAPI.createPayment,
                        PaymentDraft(
                            storeID: store.id, items: [.init(name: "Tea", unitPrice: 1, quantity: 1, vatRateBP: 0)],
                            method: .cash),
                        options: Self.options(courier, key: "pay-2"))
                }?.code == .permissionDenied)
            #expect(
                await Self.refusal {
                    _ = try await suite.payments.call(
                        PaymentsAPI.createPayment,
                        PaymentDraft(
                            items: [.init(name: "Tea", unitPrice: 1, quantity: 1, vatRateBP: 0)], method: .cash),
                        options: Self.options(Self.admin, key: "pay-3"))
                }?.details?["store_id"] != nil)
        }
    }

    @Test("notifications go to whom the rules name, once per event however often it comes")
    func notificationRules() async throws {
        try await InProcessSuite.with { suite in
            let store = StoreID()
            let staff = Self.user(.staff, store: store)
            let otherStaff = Self.user(.staff, store: StoreID())
            let onDuty = Self.user(.courier, onDuty: true)
            let offDuty = Self.user(.courier, onDuty: false)
            let customer = Self.user(.customer)
            for user in [staff, otherStaff, onDuty, offDuty, customer] {
                try await suite.notifier.apply(try Self.joined(user))
            }
            var order = try Self.order(in: store, createdBy: customer.id)
            func apply(_ type: String, change: String) async throws {
                let entry = OrderHistoryEntry(
                    seq: order.version, orderID: order.id, at: Date(), actorID: staff.id, actorRole: .staff,
                    change: change)
                try await suite.notifier.apply(
                    DomainEvent(
                        type: type, storeID: store, aggregateID: order.id.description,
                        payload: try EventPayload(encoding: OrderChange(order: order, change: entry))))
            }
            let created = DomainEvent(
                type: OrdersAPI.Events.created, storeID: store, aggregateID: order.id.description,
                payload: try EventPayload(encoding: order))
            // Delivered twice, stored once. The store hears of a new delivery order; the couriers
            // on duty do not, since it is not in their pool yet (they could not open it).
            try await suite.notifier.apply(created)
            try await suite.notifier.apply(created)
            #expect(try await Self.types(staff, in: suite) == ["order.created"])
            let told = try #require(try await Self.inbox(staff, in: suite).first)
            #expect(
                told.title == "New order #7" && told.body == "Delivery to Herzl 12, floor 3, apt. 7, Tel Aviv, 2 boxes")
            #expect(told.titleKey == "order.created.title" && told.bodyKey == "order.created.delivery")
            #expect(told.args == ["7", "Herzl 12, floor 3, apt. 7, Tel Aviv", "2"])
            for nobody in [onDuty, offDuty, otherStaff, customer] {
                #expect(try await Self.types(nobody, in: suite).isEmpty)
            }

            // Accepted, it enters the pool: the couriers on duty are told, without the apartment.
            order.status = .accepted
            try await apply(OrdersAPI.Events.statusChanged, change: "accept")
            #expect(try await Self.types(staff, in: suite) == ["order.created", "order.status_changed"])
            #expect(try await Self.types(customer, in: suite) == ["order.status_changed"])
            let available = try await Self.inbox(onDuty, in: suite)
            #expect(available.map(\.type) == ["order.available"])
            #expect(available.last?.body == "2 boxes to Herzl 12, floor 3, Tel Aviv")
            for nobody in [offDuty, otherStaff] { #expect(try await Self.types(nobody, in: suite).isEmpty) }

            // Preparing, nobody new is told it can be claimed; ready, the couriers are told again.
            order.status = .preparing
            try await apply(OrdersAPI.Events.statusChanged, change: "start_preparing")
            order.status = .ready
            try await apply(OrdersAPI.Events.statusChanged, change: "mark_ready")
            #expect(try await Self.types(onDuty, in: suite) == ["order.available", "order.available"])
            #expect(try await Self.types(customer, in: suite) == Array(repeating: "order.status_changed", count: 3))

            // Claimed, then released: the store hears of both, the couriers of the order back in the pool.
            order.courierID = onDuty.id
            try await apply(OrdersAPI.Events.claimed, change: "claim")
            order.courierID = nil
            try await apply(OrdersAPI.Events.released, change: "release")
            #expect(
                try await Self.types(staff, in: suite) == [
                    "order.created", "order.status_changed", "order.status_changed", "order.status_changed",
                    "order.claimed", "order.released",
                ])
            #expect(try await Self.types(onDuty, in: suite).suffix(1) == ["order.available"])
            #expect(try await Self.types(onDuty, in: suite).count == 3)

            // The courier carrying it hears of its status changes.
            order.courierID = onDuty.id
            order.status = .outForDelivery
            try await apply(OrdersAPI.Events.statusChanged, change: "pick_up")
            let carrying = try await Self.types(onDuty, in: suite)
            #expect(carrying.count == 4 && carrying.last == "order.status_changed")
            #expect(try await Self.types(customer, in: suite).count == 4)
            for nobody in [offDuty, otherStaff] { #expect(try await Self.types(nobody, in: suite).isEmpty) }

            // A payload without what the rules need is refused, naming the field.
            let broken = DomainEvent(
                type: OrdersAPI.Events.created, storeID: store, aggregateID: "x",
                payload: EventPayload(encodedJSON: #"{"id":"not-a-uuid"}"#))
            await #expect(throws: DecodingError.self) { try await suite.notifier.apply(broken) }
        }
    }

    @Test("couriers hear of no pickup order, and of no order that a courier has claimed already")
    func nothingToClaim() async throws {
        try await InProcessSuite.with { suite in
            let store = StoreID()
            let staff = Self.user(.staff, store: store)
            let carrier = Self.user(.courier, onDuty: true)
            let other = Self.user(.courier, onDuty: true)
            for user in [staff, carrier, other] { try await suite.notifier.apply(try Self.joined(user)) }
            func apply(_ type: String, _ order: Order, change: String? = nil) async throws {
                let payload: EventPayload
                if let change {
                    let entry = OrderHistoryEntry(
                        seq: order.version, orderID: order.id, at: Date(), actorID: staff.id, actorRole: .staff,
                        change: change)
                    payload = try EventPayload(encoding: OrderChange(order: order, change: entry))
                } else {
                    payload = try EventPayload(encoding: order)
                }
                try await suite.notifier.apply(
                    DomainEvent(type: type, storeID: store, aggregateID: order.id.description, payload: payload))
            }

            // A pickup order: the store hears of it, from making to ready; no courier ever does.
            var pickup = try Self.order(in: store, createdBy: staff.id)
            pickup.fulfillment = .pickup
            try await apply(OrdersAPI.Events.created, pickup)
            for (status, action) in [
                (OrderStatus.accepted, "accept"), (.preparing, "start_preparing"), (.ready, "mark_ready"),
            ] {
                pickup.status = status
                try await apply(OrdersAPI.Events.statusChanged, pickup, change: action)
            }
            #expect(try await Self.types(staff, in: suite).count == 4)
            #expect(try await Self.types(carrier, in: suite).isEmpty)
            #expect(try await Self.types(other, in: suite).isEmpty)

            // A delivery order claimed as soon as it is accepted: ready, it is not offered again;
            // the courier carrying it hears of its status, the other courier of nothing more.
            var delivery = try Self.order(in: store, createdBy: staff.id)
            try await apply(OrdersAPI.Events.created, delivery)
            delivery.status = .accepted
            try await apply(OrdersAPI.Events.statusChanged, delivery, change: "accept")
            delivery.courierID = carrier.id
            try await apply(OrdersAPI.Events.claimed, delivery, change: "claim")
            for (status, action) in [(OrderStatus.preparing, "start_preparing"), (.ready, "mark_ready")] {
                delivery.status = status
                try await apply(OrdersAPI.Events.statusChanged, delivery, change: action)
            }
            #expect(try await Self.types(other, in: suite) == ["order.available"])
            #expect(
                try await Self.types(carrier, in: suite) == [
                    "order.available", "order.status_changed", "order.status_changed",
                ])
        }
    }

    @Test(
        "what the couriers on duty are told is stored once and read through each one's spells on duty: who comes on duty after it never sees it, who goes off keeps it, in their language, with their own read state",
        arguments: TestDatabase.kinds)
    func broadcastsFollowSpellsOnDuty(on kind: Database.Kind) async throws {
        try await InProcessSuite.with(on: kind) { suite in
            let store = StoreID()
            let staff = Self.user(.staff, store: store)
            var early = Self.user(.courier, onDuty: true)
            var late = Self.user(.courier, onDuty: false)
            var hebrew = Self.user(.courier, onDuty: true)
            hebrew.locale = "he"
            for user in [staff, early, late, hebrew] { try await suite.notifier.apply(try Self.joined(user)) }
            // Orders born in the pool (their store dispatches on creation), which couriers hear of.
            func created(_ number: Int64) throws -> DomainEvent {
                var order = try Self.order(in: store, createdBy: staff.id)
                order.number = number
                order.status = .ready
                return DomainEvent(
                    type: OrdersAPI.Events.created, storeID: store, aggregateID: order.id.description,
                    payload: try EventPayload(encoding: order))
            }
            func changed(_ user: inout User, onDuty: Bool) throws -> DomainEvent {
                user.onDuty = onDuty
                user.version += 1
                return DomainEvent(
                    type: GatewayAPI.Events.userUpdated, storeID: nil, aggregateID: user.id.description,
                    payload: try EventPayload(encoding: user))
            }
            func numbers(_ user: User) async throws -> [String] {
                try await Self.inbox(user, in: suite).compactMap { $0.args?.first }
            }

            // Order 1 before `late` comes on duty, in the same batch: only the two on duty hear of it.
            try await suite.notifier.apply([try created(1), try changed(&late, onDuty: true)])
            #expect(try await numbers(early) == ["1"])
            #expect(try await numbers(late).isEmpty)
            let told = try await Self.inbox(hebrew, in: suite)
            #expect(told.first?.title == "משלוח חדש #1", "\(told)")
            #expect(try await Self.inbox(early, in: suite).first?.title == "New delivery #1")
            #expect(try await Self.inbox(early, in: suite).first?.id == told.first?.id)

            // Order 2 for all three; then `early` goes off duty before order 3, in one batch, and keeps 1 and 2.
            try await suite.notifier.apply(try created(2))
            try await suite.notifier.apply([try changed(&early, onDuty: false), try created(3)])
            #expect(try await numbers(early) == ["1", "2"])
            #expect(try await numbers(late) == ["2", "3"])
            #expect(try await numbers(hebrew) == ["1", "2", "3"])
            // Back on duty: their earlier spell and the new one, not what came in between.
            try await suite.notifier.apply(try changed(&early, onDuty: true))
            try await suite.notifier.apply(try created(4))
            #expect(try await numbers(early) == ["1", "2", "4"])
            // An update that leaves them on duty neither starts a spell nor ends one.
            try await suite.notifier.apply(try changed(&early, onDuty: true))
            try await suite.notifier.apply(try created(5))
            #expect(try await numbers(early) == ["1", "2", "4", "5"])
            // The store hears of each once, in its own inbox.
            #expect(try await Self.types(staff, in: suite).count == 5)

            // Read state is each courier's own: up to a seq, by id, with their own notifications beside.
            let inbox = try await Self.inbox(early, in: suite)
            func read(_ request: NotificationReadRequest, by user: User) async throws -> NotificationReadState {
                try await suite.notifications.call(
                    NotificationsAPI.markRead, request, options: Self.options(user.principal))
            }
            func unread(_ user: User) async throws -> Int64 {
                try await suite.notifications.call(
                    NotificationsAPI.list, NotificationListRequest(after: 0), options: Self.options(user.principal)
                ).unreadCount
            }
            #expect(try await unread(early) == 4)
            #expect(try await unread(late) == 4)
            let upTo = try await read(NotificationReadRequest(upToSeq: inbox[1].seq), by: early)
            #expect(upTo.marked == 2 && upTo.unreadCount == 2)
            #expect(try await read(NotificationReadRequest(upToSeq: inbox[1].seq), by: early).marked == 0)
            let byID = try await read(NotificationReadRequest(ids: [inbox[3].id, UUID()]), by: early)
            #expect(byID.marked == 1 && byID.unreadCount == 1)
            #expect(try await read(NotificationReadRequest(ids: [inbox[3].id]), by: early).marked == 0)
            #expect(try await Self.inbox(early, in: suite).map { $0.readAt != nil } == [true, true, false, true])
            // Up to a seq past what was read alone counts it once; a seq beyond the last number
            // marks nothing yet to come.
            let all = try await read(NotificationReadRequest(upToSeq: Int64.max), by: early)
            #expect(all.marked == 1 && all.unreadCount == 0)
            try await suite.notifier.apply(try created(6))
            #expect(try await unread(early) == 1)
            #expect(try await Self.inbox(early, in: suite).last?.readAt == nil)
            // Nobody else's read state moved, and a broadcast before a courier's spell is not
            // theirs to mark.
            #expect(try await unread(late) == 5)
            let notTheirs = try await read(NotificationReadRequest(ids: [inbox[0].id]), by: late)
            #expect(notTheirs.marked == 0 && notTheirs.unreadCount == 5)
        }
    }

    @Test("stock goes to owners and managers, payments to the staff member and customer, each in their language")
    func stockAndPaymentNotifications() async throws {
        try await InProcessSuite.with { suite in
            let store = StoreID()
            var owner = Self.user(.owner, store: store)
            owner.locale = "he"
            var manager = Self.user(.manager, store: store)
            manager.locale = "ar"
            let cashier = Self.user(.staff, store: store)
            let otherCashier = Self.user(.staff, store: store)
            var customer = Self.user(.customer)
            customer.locale = "ar-EG"
            let elsewhere = Self.user(.owner, store: StoreID())
            let everyone = [owner, manager, cashier, otherCashier, customer, elsewhere]
            for user in everyone { try await suite.notifier.apply(try Self.joined(user)) }
            func event(_ type: String, _ json: String) -> DomainEvent {
                DomainEvent(type: type, storeID: store, aggregateID: "x", payload: EventPayload(encodedJSON: json))
            }
            let product = ProductID()
            try await suite.notifier.apply(
                event(
                    CatalogAPI.Events.stockLow,
                    #"{"id":"\#(product)","store_id":"\#(store)","name":"Hummus","available":3,"reserved":12}"#))
            #expect(try await Self.inbox(owner, in: suite).map(\.title) == ["Hummus עומד להיגמר"])
            #expect(
                try await Self.inbox(owner, in: suite).first?.body
                    == "נשארו 3 למכירה, 12 שמורים להזמנות ולמכירות שטרם שולמו")
            #expect(try await Self.inbox(manager, in: suite).map(\.title) == ["Hummus على وشك النفاد"])
            #expect(
                try await Self.inbox(manager, in: suite).first?.data == [
                    "product_id": product.description, "store_id": store.description,
                ])
            for nobody in [cashier, otherCashier, customer, elsewhere] {
                #expect(try await Self.inbox(nobody, in: suite).isEmpty)
            }
            try await suite.notifier.apply(
                event(
                    CatalogAPI.Events.stockOut,
                    #"{"id":"\#(product)","store_id":"\#(store)","name":"Hummus","available":0}"#))
            #expect(try await Self.inbox(owner, in: suite).map(\.type) == ["stock.low", "stock.out"])
            #expect(try await Self.inbox(manager, in: suite).last?.title == "نفد Hummus من المخزون")
            for nobody in [cashier, otherCashier, customer, elsewhere] {
                #expect(try await Self.inbox(nobody, in: suite).isEmpty)
            }

            let payment = PaymentID()
            let paid =
                #"{"id":"\#(payment)","store_id":"\#(store)","customer_id":"\#(customer.id)","staff_id":"\#(cashier.id)","amount":3550,"currency":"ILS","method":"cash"}"#
            try await suite.notifier.apply(event(PaymentsAPI.Events.completed, paid))
            try await suite.notifier.apply(
                event(
                    PaymentsAPI.Events.refunded,
                    #"{"payment":\#(paid),"refund":{"id":"r1","amount":1000,"reason":"Cold"}}"#))
            let cashierHeard = try await Self.inbox(cashier, in: suite)
            #expect(cashierHeard.map(\.type) == ["payment.completed", "payment.refunded"])
            #expect(cashierHeard.map(\.title) == ["Payment of 35.50 ILS received", "10.00 ILS refunded"])
            #expect(cashierHeard.map(\.body) == ["Paid in cash", "Reason: Cold"])
            #expect(
                cashierHeard.last?.data["refund_id"] == "r1"
                    && cashierHeard.first?.data["payment_id"] == payment.description)
            // The customer's language is Arabic (Egypt): written in Arabic.
            #expect(
                try await Self.inbox(customer, in: suite).map(\.title) == [
                    "تم استلام دفعة بقيمة 35.50 ILS", "تم استرداد 10.00 ILS",
                ])
            #expect(try await Self.inbox(customer, in: suite).first?.args == ["35.50 ILS"])
            #expect(try await Self.inbox(owner, in: suite).count == 2)
            for nobody in [otherCashier, elsewhere] { #expect(try await Self.inbox(nobody, in: suite).isEmpty) }
        }
    }

    @Test("a batch of events is applied in one go as it would be one by one, repeats once")
    func notificationBatch() async throws {
        try await InProcessSuite.with { suite in
            let store = StoreID()
            let early = Self.user(.staff, store: store)
            let late = Self.user(.staff, store: store)
            let onDuty = Self.user(.courier, onDuty: true)
            func created(_ order: Order) throws -> DomainEvent {
                DomainEvent(
                    type: OrdersAPI.Events.created, storeID: store, aggregateID: order.id.description,
                    payload: try EventPayload(encoding: order))
            }
            // The first is born in the pool (its store dispatches on creation), the second enters it.
            var first = try Self.order(in: store, createdBy: early.id)
            first.status = .ready
            var second = try Self.order(in: store, createdBy: early.id)
            let firstCreated = try created(first)
            let secondCreated = try created(second)
            second.status = .accepted
            let accepted = DomainEvent(
                type: OrdersAPI.Events.statusChanged, storeID: store, aggregateID: second.id.description,
                payload: try EventPayload(
                    encoding: OrderChange(
                        order: second,
                        change: OrderHistoryEntry(
                            seq: 2, orderID: second.id, at: Date(), actorID: early.id, actorRole: .staff,
                            change: "accept"))))
            try await suite.notifier.apply([try Self.joined(early), try Self.joined(onDuty)])
            // The late joiner hears only of what follows their joining; a repeat, in the batch or
            // after it, is stored once.
            try await suite.notifier.apply([
                firstCreated, try Self.joined(late), secondCreated, firstCreated, accepted,
            ])
            try await suite.notifier.apply([secondCreated, accepted])
            let earlyInbox = try await Self.inbox(early, in: suite)
            #expect(earlyInbox.map(\.type) == ["order.created", "order.created", "order.status_changed"])
            #expect(earlyInbox.map { $0.data["order_id"] } == [first.id, second.id, second.id].map(\.description))
            #expect(earlyInbox.map(\.seq) == earlyInbox.map(\.seq).sorted())
            #expect(try await Self.inbox(late, in: suite).map(\.type) == ["order.created", "order.status_changed"])
            #expect(
                try await Self.inbox(onDuty, in: suite).map(\.type) == ["order.created", "order.available"])
        }
    }

    /// The event that tells the notifications service of a user.
    static func joined(_ user: User) throws -> DomainEvent {
        DomainEvent(
            type: GatewayAPI.Events.userCreated, storeID: user.storeID, aggregateID: user.id.description,
            payload: try EventPayload(encoding: user))
    }

    /// What a user's inbox holds, oldest first.
    static func inbox(_ user: User, in suite: InProcessSuite) async throws -> [UserNotification] {
        try await suite.notifications.call(
            NotificationsAPI.list, NotificationListRequest(after: 0), options: options(user.principal)
        ).data
    }

    /// The types of what a user's inbox holds, oldest first.
    static func types(_ user: User, in suite: InProcessSuite) async throws -> [String] {
        try await inbox(user, in: suite).map(\.type)
    }

    static func user(_ role: Role, store: StoreID? = nil, onDuty: Bool = false) -> User {
        User(
            id: UserID(), email: "\(UUID())@example.com", name: "N", phone: nil, role: role, storeID: store,
            staffRole: nil, active: true, onDuty: onDuty, version: 1, createdAt: Date(), updatedAt: Date())
    }

    static func order(in store: StoreID, createdBy: UserID) throws -> Order {
        let draft = try OrderDraft(
            recipientFirstName: "Dana", recipientLastName: "Levi", phone: "050-1234567", street: "Herzl",
            buildingNo: "12", floor: "3", apartment: "7", city: "Tel Aviv", boxesCount: 2
        ).validated()
        return Order(
            id: OrderID(), number: 7, storeID: store, status: .pending, version: 1, draft: draft, pickupAddress: nil,
            quote: DeliveryQuote(fee: 3500, multiplier: 1), currency: .ils, createdBy: createdBy, createdAt: Date())
    }
}
