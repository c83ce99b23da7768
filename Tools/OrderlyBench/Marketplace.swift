import AsyncHTTPClient
import Contracts
import Domain
import Foundation
import NIOCore
import NIOHTTP1
import Runtime
import Synchronization

/// The stores, their menus and customers of a marketplace run, and what each checkout placed.
final class Marketplace: Sendable {
    static let checkoutOperation = "POST /v1/orders (checkout)"

    struct Item: Sendable {
        var id: ProductID
        /// The option ids of each group, with how many of it a line chooses at least and at most.
        var groups: [(options: [OptionID], min: Int, max: Int)]
    }

    struct Customer: Sendable {
        var token: String
        var address: AddressID
        /// Where the address is, what the customer's app searches near.
        var place: GeoPoint
    }

    /// Where the stores and the customers are: spread over 10 km around Tel Aviv, each store
    /// delivering 25 km around itself, so that every customer is in every store's area and each
    /// checkout passes through the area's test.
    static let centre = GeoPoint(lat: 32.0853, lng: 34.7818)

    static func nearCentre(_ index: Int) -> GeoPoint {
        GeoPoint(lat: centre.lat + Double(index % 9 - 4) * 0.01, lng: centre.lng + Double(index % 7 - 3) * 0.01)
    }

    /// An order as its checkout was acknowledged.
    struct Placed: Sendable {
        var store: Int
        var customer: Int
        var method: OrderPaymentMethod
        var total: Int64
        var tip: Int64
        var units: [ProductID: Int64]
    }

    let stores: [StoreID]
    let menus: [[Item]]
    let customers: [Customer]
    let openingStock: Int64
    let provider: String
    let secret: String

    private struct State {
        var placed: [OrderID: Placed] = [:]
        var outcomes: [String: Int] = [:]
        var delivered: Set<OrderID> = []
        /// What the payouts acknowledged paid each store.
        var paidOut: [StoreID: Int64] = [:]
        /// The units of the checkouts sent more than once (the first attempt unanswered), which
        /// the first attempt may still hold.
        var retriedUnits: [ProductID: Int64] = [:]
    }

    private let state = Mutex(State())

    init(
        stores: [StoreID], menus: [[Item]], customers: [Customer], openingStock: Int64, provider: String,
        secret: String
    ) {
        self.stores = stores
        self.menus = menus
        self.customers = customers
        self.openingStock = openingStock
        self.provider = provider
        self.secret = secret
    }

    var placedCount: Int { state.withLock { $0.placed.count } }
    var placedIDs: [OrderID] { state.withLock { Array($0.placed.keys) } }
    var paidOut: [StoreID: Int64] { state.withLock { $0.paidOut } }

    /// Pays `store` out 1.00 when it has more than that available, sending the payout again with
    /// its key until the suite answers; counts what it acknowledged.
    func payOut(_ api: API, store: StoreID, admin: String) async {
        guard
            let balance = try? await api.send(.GET, "/v1/stores/\(store)/balance?limit=1", token: admin),
            balance.status == 200, let figures = try? balance.decode(AccountBalance.self).balances.first,
            figures.available > 100
        else { return }
        let key = UUID().uuidString
        let answered = try? await Self.retrying {
            try await api.send(
                .POST, "/v1/stores/\(store)/payouts", token: admin,
                body: PayoutDraft(amount: 100, currency: figures.currency, reference: "loadgen"),
                headers: [("Idempotency-Key", key)])
        }
        guard let reply = answered else {
            count("payout_unanswered")
            return
        }
        guard reply.status == 201 else {
            count("payout_refused_\(reply.status)")
            return
        }
        state.withLock {
            $0.paidOut[store, default: 0] += 100
            $0.outcomes["payouts", default: 0] += 1
        }
    }

    var summary: String {
        state.withLock { state in
            "marketplace: placed=\(state.placed.count) delivered=\(state.delivered.count) "
                + state.outcomes.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        }
    }

    private func count(_ outcome: String, by amount: Int = 1) {
        state.withLock { $0.outcomes[outcome, default: 0] += amount }
    }

    /// Opens the stores (all week; every other one accepting by itself) with their menus, and
    /// signs `customers` customers up, each with a saved address.
    static func open(_ api: API, cast: Cast, customers: Int, provider: String, secret: String) async throws
        -> Marketplace
    {
        let allWeek = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"].map {
            OpeningPeriodBody(day: $0, open: "00:00", close: "24:00")
        }
        let openingStock: Int64 = 5_000
        var menus: [[Item]] = []
        for (index, store) in cast.stores.enumerated() {
            _ = try await api.require(
                [200], .PATCH, "/v1/stores/\(store)", token: cast.admin,
                body: StoreSwitches(
                    openingHours: allWeek, autoAccept: index % 2 == 1, commissionBP: 500 * (index % 3),
                    location: nearCentre(index), deliveryArea: .radius(metres: 25_000)))
            var menu: [Item] = []
            for number in 0..<5 {
                let product = try await api.require(
                    [201], .POST, "/v1/stores/\(store)/products", token: cast.admin,
                    body: ProductDraft(
                        name: "Dish \(number)", price: Int64(1500 + 500 * number), trackStock: true,
                        quantity: openingStock,
                        optionGroups: [
                            OptionGroupDraft(
                                name: "Size", minSelect: 1, maxSelect: 1,
                                options: [.init(name: "Regular"), .init(name: "Large", priceDelta: 600)]),
                            OptionGroupDraft(
                                name: "Extras", minSelect: 0, maxSelect: 2,
                                options: [
                                    .init(name: "Cheese", priceDelta: 300), .init(name: "Sauce", priceDelta: 100),
                                    .init(name: "Salad"),
                                ]),
                        ])
                ).decode(Product.self)
                menu.append(
                    Item(
                        id: product.id,
                        groups: product.optionGroups.map { ($0.options.map(\.id), $0.minSelect, $0.maxSelect) }))
            }
            menus.append(menu)
        }
        let run = UUID().uuidString.prefix(8).lowercased()
        var people: [Customer] = []
        for index in 0..<customers {
            let signedUp = try await api.require(
                [201], .POST, "/v1/auth/register",
                body: [
                    "email": "loadgen-\(run)-customer-\(index)@orderly.test", "password": "loadgen-password",
                    "name": "Customer \(index)", "phone": "050-\(1_000_000 + index)",
                ]
            ).decode(Cast.Tokens.self)
            let address = try await api.require(
                [201], .POST, "/v1/me/addresses", token: signedUp.accessToken,
                body: AddressFields(
                    street: "Loadgen Street", buildingNo: "\(index + 1)", city: "Tel Aviv",
                    location: nearCentre(index * 5 + 2))
            ).decode(DeliveryAddress.self)
            people.append(
                Customer(token: signedUp.accessToken, address: address.id, place: address.location ?? centre))
        }
        return Marketplace(
            stores: cast.stores, menus: menus, customers: people, openingStock: openingStock, provider: provider,
            secret: secret)
    }

    // MARK: Customers

    /// One customer's visit: now and then the open stores, or those delivering to their address
    /// by a dish's name; a store's menu; and a checkout of one to three lines with options, paid
    /// by card (the payment and the provider's report) or cash on delivery.
    func checkout(_ api: API, customer index: Int, stats: inout Stats) async throws {
        let customer = customers[index % customers.count]
        let store = Int.random(in: 0..<stores.count)
        switch Int.random(in: 0..<10) {
        case 0:
            try await stats.time("GET /v1/stores?open_now=true") {
                try await api.send(.GET, "/v1/stores?open_now=true", token: customer.token)
            }
        case 1:
            let near = "\(customer.place.lat),\(customer.place.lng)"
            try await stats.time("GET /v1/stores?near=…&q=…") {
                try await api.send(
                    .GET, "/v1/stores?near=\(near)&q=dish+\(Int.random(in: 0..<5))", token: customer.token)
            }
        default: break
        }
        try await stats.time("GET /v1/stores/{id}/menu") {
            try await api.send(.GET, "/v1/stores/\(stores[store])/menu", token: customer.token)
        }
        let lines = (0..<Int.random(in: 1...3)).map { _ -> CheckoutLine in
            let item = menus[store].randomElement()!
            let options = item.groups.flatMap { group in
                group.options.shuffled().prefix(Int.random(in: group.min...group.max))
            }
            return CheckoutLine(productID: item.id, quantity: Int.random(in: 1...2), optionIDs: options)
        }
        let method: OrderPaymentMethod = Bool.random() ? .card : .cashOnDelivery
        let draft = CheckoutDraft(
            storeID: stores[store], addressID: customer.address, items: lines, tip: Int64.random(in: 0...10) * 100,
            paymentMethod: method)
        let key = UUID().uuidString
        var attempts = 0
        let answer = try await stats.time(Self.checkoutOperation, expected: [201, 409]) {
            try await Self.retrying {
                attempts += 1
                return try await api.send(
                    .POST, "/v1/orders", token: customer.token, body: draft, headers: [("Idempotency-Key", key)])
            }
        }
        if attempts > 1 {
            state.withLock { state in
                for line in lines {
                    if let product = line.productID {
                        state.retriedUnits[product, default: 0] += Int64(line.quantity ?? 1)
                    }
                }
                state.outcomes["checkouts_retried", default: 0] += 1
            }
        }
        guard let reply = answer else {
            count("checkout_unanswered")
            return
        }
        guard reply.status == 201 else {
            count("out_of_stock")
            return
        }
        let order = try reply.decode(Order.self)
        var units: [ProductID: Int64] = [:]
        for item in order.items {
            if let product = item.productID { units[product, default: 0] += Int64(item.quantity) }
        }
        state.withLock {
            $0.placed[order.id] = Placed(
                store: store, customer: index % customers.count, method: method, total: order.total,
                tip: order.tip ?? 0, units: units)
            $0.outcomes[method.rawValue, default: 0] += 1
        }
        guard method == .card else { return }
        let paymentKey = UUID().uuidString
        let paid = try await stats.time("POST /v1/payments (card)") {
            try await Self.retrying {
                try await api.send(
                    .POST, "/v1/payments", token: customer.token,
                    body: PaymentDraft(orderID: order.id, method: .card), headers: [("Idempotency-Key", paymentKey)])
            }
        }
        guard let paid, paid.status == 201 else { return }
        let payment = try paid.decode(Payment.self)
        let report = UUID().uuidString
        try await stats.time("POST /v1/payments/provider-events") {
            try await Self.retrying {
                try await api.providerReport(payment, .completed, provider: provider, secret: secret, id: report)
            }
        }
    }

    /// Sends again what the suite did not answer (no answer, 5xx, 429, or still running the
    /// first: 409 `request_in_progress`), the same request with the same key or report, for up
    /// to `patience`: what an app does through a restart. Throws when it never answered.
    static func retrying(_ patience: Duration = .seconds(60), _ send: () async throws -> API.Reply) async throws
        -> API.Reply
    {
        let deadline = ContinuousClock.now + patience
        while true {
            if let reply = try? await send(), reply.status < 500, reply.status != 429,
                reply.status != 409 || !reply.text.contains("request_in_progress")
            {
                return reply
            }
            guard ContinuousClock.now < deadline else { throw LoadGenError("no answer in \(patience)") }
            try await Task.sleep(for: .milliseconds(250))
        }
    }

    // MARK: Stores and couriers

    /// Serves every placed order: each store's staff accept (where the store does not by itself;
    /// a card order once paid), prepare and mark ready; each courier claims up to three at a
    /// time, picks them up and delivers them, collecting what is owed in cash on delivery.
    func fulfil(_ api: API, cast: Cast, within limit: Duration) async throws {
        let deadline = ContinuousClock.now + limit
        let total = placedCount
        let done: @Sendable () -> Bool = { [self] in
            state.withLock { $0.delivered.count } >= total || ContinuousClock.now > deadline
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            // A step that fails (the suite restarting) is taken again on the next turn.
            for (index, staff) in cast.staff.enumerated() {
                group.addTask { [self] in
                    while !done() {
                        let moved = (try? await kitchen(api, store: cast.stores[index], staff: staff)) ?? false
                        if !moved { try await Task.sleep(for: .milliseconds(50)) }
                    }
                }
            }
            for (index, courier) in cast.couriers.enumerated() {
                group.addTask { [self] in
                    while !done() {
                        let moved = (try? await deliveries(api, courier: courier, id: cast.courierIDs[index])) ?? false
                        if !moved { try await Task.sleep(for: .milliseconds(50)) }
                    }
                }
            }
            // Meanwhile the platform pays each store out 1.00 now and then.
            group.addTask { [self] in
                while !done() {
                    for store in stores { await payOut(api, store: store, admin: cast.admin) }
                    try await Task.sleep(for: .seconds(1))
                }
            }
            try await group.waitForAll()
        }
    }

    /// A store's next step on each open order; whether anything moved.
    private func kitchen(_ api: API, store: StoreID, staff: String) async throws -> Bool {
        let open = try await api.require(
            [200], .GET, "/v1/orders?status=pending,accepted,preparing&sort=created_at&limit=20", token: staff
        ).decode(Page<Order>.self).data
        var moved = false
        for order in open {
            let action: OrderAction? =
                switch order.status {
                case .pending: order.awaitsPayment ? nil : .accept
                case .accepted: .startPreparing
                case .preparing: .markReady
                default: nil
                }
            guard let action else { continue }
            let reply = try await api.send(
                .POST, "/v1/orders/\(order.id)/actions/\(action.rawValue)", token: staff, body: [String: String]())
            if reply.status == 200 { moved = true }
        }
        return moved
    }

    /// A courier's next steps: deliver what is out, pick up what is ready, claim from the pool
    /// while carrying fewer than three; whether anything moved.
    private func deliveries(_ api: API, courier: String, id: UserID) async throws -> Bool {
        var carried = try await api.require(
            [200], .GET, "/v1/orders?courier_id=\(id)&status=accepted,preparing,ready,out_for_delivery&limit=10",
            token: courier
        ).decode(Page<Order>.self).data
        var moved = false
        for order in carried {
            switch order.status {
            case .outForDelivery:
                let owed =
                    order.paymentMethod == .cashOnDelivery && order.leftToPay > 0
                    ? order.leftToPay + (order.tip ?? 0) : nil
                // Sent again with its key until answered: the first answer, once it delivered.
                let reply = try await Self.retrying {
                    try await api.send(
                        .POST, "/v1/orders/\(order.id)/actions/deliver", token: courier,
                        body: DeliverBody(cashCollected: owed), headers: [("Idempotency-Key", "deliver-\(order.id)")])
                }
                if reply.status == 200 {
                    moved = true
                    _ = state.withLock { $0.delivered.insert(order.id) }
                } else {
                    count("deliver_refused_\(reply.status)")
                }
            case .ready:
                let reply = try await api.send(
                    .POST, "/v1/orders/\(order.id)/actions/pick_up", token: courier, body: [String: String]())
                moved = moved || reply.status == 200
            default:
                break
            }
        }
        carried = carried.filter { $0.status != .outForDelivery }
        guard carried.count < OrderPool.maximumCarried else { return moved }
        // The oldest orders first, so that none waits behind the newer ones.
        let pool = try await api.require(
            [200], .GET, "/v1/orders?available=true&sort=created_at&limit=\(OrderPool.maximumCarried)", token: courier
        ).decode(Page<Order>.self).data
        for order in pool where carried.count < OrderPool.maximumCarried {
            let reply = try await api.send(
                .POST, "/v1/orders/\(order.id)/actions/claim", token: courier, body: [String: String]())
            if reply.status == 200 {
                moved = true
                carried.append(order)
            }
        }
        return moved
    }

    // MARK: Invariants

    func check(_ api: API, _ admin: String, wait: Duration) async throws -> [String] {
        let placed = state.withLock { $0.placed }
        var problems: [String] = []
        // Every order delivered and paid exactly its total, once the payments have caught up.
        let deadline = ContinuousClock.now + wait
        let holdSeconds = try OrdersSettings.read(from: try await ConfigurationSource.load(arguments: []))
            .lineHoldSeconds
        let expiryWait: Duration? = holdSeconds <= 120 ? .seconds(holdSeconds + 5) : nil
        let stockDeadline = ContinuousClock.now + (expiryWait ?? .zero)
        var orders: [OrderID: Order] = [:]
        for id in placed.keys {
            var order = try await api.require([200], .GET, "/v1/orders/\(id)", token: admin).decode(Order.self)
            while order.paymentStatus != .paid, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(200))
                order = try await api.require([200], .GET, "/v1/orders/\(id)", token: admin).decode(Order.self)
            }
            orders[id] = order
            if order.status != .delivered { problems.append("order \(id) is \(order.status.rawValue), not delivered") }
            if order.paidAmount != order.total || order.paymentStatus != .paid {
                problems.append("order \(id) paid \(order.paidAmount ?? 0) of \(order.total)")
            }
        }
        // One completed payment of each order's total and tip; revenue is what they took.
        let from = LoadGen.day(Date().addingTimeInterval(-86_400))
        let to = LoadGen.day(Date().addingTimeInterval(86_400))
        for (index, store) in stores.enumerated() {
            var completed: [OrderID: [Int64]] = [:]
            for payment in try await completedPayments(api, of: store, admin: admin) {
                if let order = payment.orderID { completed[order, default: []].append(payment.amount) }
            }
            for (id, order) in placed where order.store == index {
                let amounts = completed[id] ?? []
                if amounts != [order.total + order.tip] {
                    problems.append("order \(id): completed payments \(amounts), expected [\(order.total + order.tip)]")
                }
            }
            let expected = completed.values.joined().reduce(0, +)
            var revenue: Int64 = -1
            while ContinuousClock.now < deadline || revenue == -1 {
                revenue = try await api.require(
                    [200], .GET, "/v1/stores/\(store)/stats?from=\(from)&to=\(to)", token: admin
                ).decode(Till.Totals.self).totals.revenue
                if revenue == expected { break }
                try await Task.sleep(for: .milliseconds(500))
            }
            if revenue != expected {
                problems.append("store \(store): statistics revenue \(revenue), completed payments \(expected)")
            }
            // Nothing oversold, nothing left held but what a checkout interrupted by a crash may
            // hold (a try the orders service never stored, its stock not given back), until the
            // hold expires; a short hold is waited for, a long one allows what was resent.
            let orphans = state.withLock { $0.retriedUnits }
            for item in menus[index] {
                let sold = placed.values.filter { $0.store == index }.reduce(0) { $0 + ($1.units[item.id] ?? 0) }
                let mayHold = expiryWait == nil ? orphans[item.id, default: 0] : 0
                var product = try await api.require([200], .GET, "/v1/products/\(item.id)", token: admin)
                    .decode(Product.self)
                while product.reserved > mayHold || product.quantity != openingStock - sold,
                    ContinuousClock.now < max(deadline, stockDeadline)
                {
                    try await Task.sleep(for: .milliseconds(200))
                    product = try await api.require([200], .GET, "/v1/products/\(item.id)", token: admin)
                        .decode(Product.self)
                }
                if product.quantity != openingStock - sold || product.reserved > mayHold || product.quantity < 0 {
                    problems.append(
                        "product \(item.id): \(product.quantity) in stock, \(product.reserved) held; "
                            + "expected \(openingStock - sold), at most \(mayHold) held")
                }
                if product.reserved > 0 { count("units_held_by_interrupted_checkouts", by: Int(product.reserved)) }
            }
        }
        // Each customer heard each order's five status changes exactly once.
        for (index, customer) in customers.enumerated() {
            let theirs = Set(placed.filter { $0.value.customer == index }.keys)
            guard !theirs.isEmpty else { continue }
            var told: [OrderID: [String]] = [:]
            var after: Int64 = 0
            while true {
                let page = try await api.require(
                    [200], .GET, "/v1/notifications?after=\(after)&limit=200&wait=1", token: customer.token
                ).decode(NotificationInbox.self)
                // Their payments' notifications name the order too; the status changes are counted.
                for notification in page.data where notification.titleKey?.hasPrefix("order.status.") == true {
                    if let id = notification.data["order_id"].flatMap(OrderID.init), let key = notification.titleKey {
                        told[id, default: []].append(key)
                    }
                }
                after = page.data.last?.seq ?? after
                let complete = theirs.allSatisfy { told[$0]?.count ?? 0 >= 5 }
                if page.data.isEmpty && (complete || ContinuousClock.now > deadline) { break }
            }
            for id in theirs {
                let keys = told[id] ?? []
                if keys.count != 5 || Set(keys).count != 5 {
                    problems.append("customer \(index): told \(keys) of order \(id), not each of its 5 changes once")
                }
            }
        }
        return problems
    }
}

/// A store's opening period, as `PATCH /v1/stores/{id}` takes it.
struct OpeningPeriodBody: Encodable, Sendable {
    var day: String
    var open: String
    var close: String
}

/// What a marketplace run sets on each store.
struct StoreSwitches: Encodable, Sendable {
    var openingHours: [OpeningPeriodBody]
    var autoAccept: Bool
    /// 0%, 5% or 10%, store by store, so that the ledger's invariants meet a commission.
    var commissionBP: Int
    var location: GeoPoint
    var deliveryArea: DeliveryArea

    enum CodingKeys: String, CodingKey {
        case openingHours = "opening_hours"
        case autoAccept = "auto_accept"
        case commissionBP = "commission_bp"
        case location
        case deliveryArea = "delivery_area"
    }
}

/// A courier's `deliver`, with the cash collected for a cash-on-delivery order.
struct DeliverBody: Encodable, Sendable {
    var cashCollected: Int64?

    enum CodingKeys: String, CodingKey { case cashCollected = "cash_collected" }
}
