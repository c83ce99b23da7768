import AsyncHTTPClient
import Contracts
import Domain
import Foundation
import NIOCore
import NIOHTTP1
import Runtime
import Synchronization

/// The stores' tills: what each step rang up and how it ended, as the API acknowledged it.
final class Till: Sendable {
    let stores: [StoreID]
    let shelves: [[StockRun.Product]]
    /// Each store's NFC cards, the last one blocked.
    let cards: [[TappedCard]]
    let provider: String
    let secret: String

    struct TappedCard: Sendable {
        var id: CardID
        var uid: String
        var customer: CustomerID
        var blocked: Bool
    }

    /// What happened to a customer, as their milestones must say.
    struct Milestones: Sendable {
        var linked = false
        var paid = false
    }

    /// A card uid no other has: seven random bytes.
    static func newUID() -> String {
        (0..<7).map { _ in String(format: "%02X", UInt8.random(in: 0...255)) }.joined()
    }

    struct Sale: Sendable {
        var store: Int
        var amount: Int64
        var units: [String: Int64]
    }

    private struct State {
        var completed: [String: Sale] = [:]
        var refunds: [Int: Int64] = [:]
        var refundCount: [Int: Int] = [:]
        var restocked: [String: Int64] = [:]
        /// Every reservation, with whether its payment completed.
        var reservations: [String: Bool] = [:]
        var expiring: [(id: String, at: Date)] = []
        var outcomes: [String: Int] = [:]
        var uncertain = 0
        var customers: [String: Milestones] = [:]
        /// Each store's refunds and cards linked to a customer, by id.
        var refundIDs: [Int: [String]] = [:]
        var linkedCards: [Int: [String]] = [:]
        /// Taps of a blocked card answered otherwise than 422 `card_blocked`.
        var blockedAnswers: [Int] = []
    }

    private let state = Mutex(State())

    init(
        stores: [StoreID], shelves: [[StockRun.Product]], cards: [[TappedCard]], customers: [String: Milestones],
        provider: String, secret: String
    ) {
        self.stores = stores
        self.shelves = shelves
        self.cards = cards
        self.provider = provider
        self.secret = secret
        state.withLock { state in
            state.customers = customers
            for (index, wallet) in cards.enumerated() { state.linkedCards[index] = wallet.map(\.id.description) }
        }
    }

    var completions: Int { state.withLock { $0.completed.count } }

    var summary: String {
        state.withLock { state in
            "till: " + state.outcomes.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
                + " uncertain=\(state.uncertain)"
        }
    }

    /// One customer at the till.
    func step(_ api: API, _ store: Int, _ token: String, stats: inout Stats) async throws {
        let picked = shelves[store].shuffled().prefix(Int.random(in: 1...3))
        let items = picked.map { PaymentDraft.Item(productID: ProductID($0.id)!, quantity: Int64.random(in: 1...2)) }
        let roll = Int.random(in: 0..<100)
        let outcome =
            switch roll {
            case 0..<37: "cash"
            case 37..<47: "nfc"
            case 47..<80: "card"
            case 80..<87: "card_failed"
            case 87..<92: "expiring"
            case 92..<94: "cancelled"
            case 94..<95: "linked"
            default: "refunded"
            }
        if outcome == "linked" { return try await link(api, store, token, stats: &stats) }
        let card = outcome == "nfc" ? cards[store].randomElement() : nil
        let method: PaymentMethod =
            card != nil ? .nfc : ["card", "card_failed", "expiring"].contains(outcome) ? .card : .cash
        let draft = PaymentDraft(
            items: items, tip: Bool.random() ? 100 : 0, method: method, cardUID: card?.uid,
            expiresInSeconds: outcome == "expiring" ? 2 : nil)
        let created = try await stats.time("POST /v1/payments", expected: card?.blocked == true ? [422] : [201]) {
            try await api.send(
                .POST, "/v1/payments", token: token, body: draft, headers: [("Idempotency-Key", UUID().uuidString)])
        }
        if card?.blocked == true {
            let refused = created.map { $0.status == 422 && $0.text.contains("card_blocked") } ?? false
            state.withLock { state in
                state.outcomes["nfc_blocked", default: 0] += 1
                if let created, !refused { state.blockedAnswers.append(created.status) }
            }
            return
        }
        guard let created, created.status == 201, let payment = try? created.decode(Payment.self) else {
            state.withLock { $0.uncertain += 1 }
            return
        }
        if let reservation = payment.reservationID {
            state.withLock { $0.reservations[reservation.description] = false }
        }
        var done: Payment?
        switch outcome {
        case "cash", "refunded":
            done = try await finish(
                stats.time("confirm (cash)") {
                    try await api.send(
                        .POST, "/v1/payments/\(payment.id)/confirm", token: token,
                        body: ["amount_tendered": payment.amount + 50])
                })
        case "card", "card_failed", "nfc":
            for type in ["confirmed", "processing", outcome == "card_failed" ? "failed" : "completed"] {
                let reply = try await stats.time("provider report") { try await report(api, payment, type) }
                if type == "completed", reply?.status == 200 {
                    done = try await api.require([200], .GET, "/v1/payments/\(payment.id)", token: token)
                        .decode(Payment.self)
                }
            }
        case "expiring":
            if let at = payment.expiresAt { state.withLock { $0.expiring.append((payment.id.description, at)) } }
        default:
            try await stats.time("cancel") {
                try await api.send(.POST, "/v1/payments/\(payment.id)/cancel", token: token)
            }
        }
        state.withLock { $0.outcomes[outcome, default: 0] += 1 }
        guard let done, done.status == .completed else { return }
        var units: [String: Int64] = [:]
        for item in done.items { if let id = item.productID { units[id.description, default: 0] += item.quantity } }
        state.withLock { state in
            state.completed[done.id.description] = Sale(store: store, amount: done.amount, units: units)
            if let reservation = done.reservationID { state.reservations[reservation.description] = true }
            if let customer = done.customerID {
                state.customers[customer.description, default: Milestones()].paid = true
            }
        }
        guard outcome == "refunded", let first = done.items.first, let product = first.productID else { return }
        // Half the payment, or at least the unit it puts back on the shelf.
        let request = RefundBody(
            amount: min(done.amount, max(done.amount / 2, first.unitPrice)), reason: "Loadgen refund",
            restockLines: [Reservation.Line(productID: product, quantity: 1)])
        let refund = try await stats.time("refund") {
            try await api.send(
                .POST, "/v1/payments/\(done.id)/refunds", token: token, body: request,
                headers: [("Idempotency-Key", UUID().uuidString)])
        }
        if let refund, refund.status == 201, let given = try? refund.decode(Refund.self) {
            state.withLock { state in
                state.refunds[store, default: 0] += request.amount
                state.refundCount[store, default: 0] += 1
                state.refundIDs[store, default: []].append(given.id.description)
                state.restocked[product.description, default: 0] += 1
            }
        }
    }

    /// A new customer at the till, and a new card linked to them once registered.
    private func link(_ api: API, _ store: Int, _ token: String, stats: inout Stats) async throws {
        let made = try await stats.time("POST customer", expected: [201]) {
            try await api.send(
                .POST, "/v1/stores/\(stores[store])/customers", token: token,
                body: CustomerDraft(name: "Walk-in", email: "walk-in@example.com"))
        }
        guard let made, made.status == 201, let customer = try? made.decode(Customer.self) else { return }
        state.withLock { $0.customers[customer.id.description] = Milestones() }
        let registered = try await stats.time("POST card", expected: [201]) {
            try await api.send(
                .POST, "/v1/stores/\(stores[store])/cards", token: token, body: CardDraft(uid: Self.newUID()))
        }
        guard let registered, registered.status == 201, let card = try? registered.decode(Card.self) else { return }
        let linked = try await stats.time("PATCH card (link)", expected: [200]) {
            try await api.send(.PATCH, "/v1/cards/\(card.id)", token: token, body: CardDraft(customerID: customer.id))
        }
        state.withLock { state in
            state.outcomes["linked", default: 0] += 1
            if linked?.status == 200 {
                state.customers[customer.id.description]?.linked = true
                state.linkedCards[store, default: []].append(card.id.description)
            }
        }
    }

    /// The ids each of a store's activity entries is about, by type, sorted: what the entry of a
    /// payment, refund, card linked or product created names, and one per shift begun.
    private func activity(_ api: API, _ admin: String, _ store: StoreID) async throws -> [String: [String]] {
        var found: [String: [String]] = [:]
        var after: Int64 = 0
        while true {
            let page = try await api.require(
                [200], .GET, "/v1/stores/\(store)/activity?limit=200&after=\(after)", token: admin
            ).decode(ActivityPage.self)
            for entry in page.data {
                let key =
                    ["payment": "payment_id", "refund": "refund_id", "card_linked": "card_id"][entry.type]
                    ?? (entry.type == "product_created" ? "product_id" : "")
                found[entry.type, default: []].append(entry.data[key] ?? "the shift")
            }
            after = page.nextCursor
            if !page.hasMore { break }
        }
        for key in found.keys { found[key]?.sort() }
        return found
    }

    private func finish(_ reply: API.Reply?) throws -> Payment? {
        guard let reply, reply.status == 200 else { return nil }
        return try reply.decode(Payment.self)
    }

    /// A provider's signed report, with the amount taken.
    private func report(_ api: API, _ payment: Payment, _ type: String) async throws -> API.Reply {
        try await api.providerReport(payment, PaymentStatus(rawValue: type), provider: provider, secret: secret)
    }

    struct RefundBody: Encodable {
        var amount: Int64
        var reason: String
        var restockLines: [Reservation.Line]
        enum CodingKeys: String, CodingKey {
            case amount, reason
            case restockLines = "restock_lines"
        }
    }

    struct Stock: Decodable {
        var quantity: Int64
        var reserved: Int64
    }

    struct Held: Decodable { var status: String }

    struct Numbered: Decodable { var number: Int64 }

    struct Page<Item: Decodable>: Decodable {
        var data: [Item]
        var nextCursor: String?
        enum CodingKeys: String, CodingKey {
            case data
            case nextCursor = "next_cursor"
        }
    }

    struct Totals: Decodable {
        var totals: Figures
        struct Figures: Decodable { var revenue: Int64 }
    }

    struct Entry: Decodable { var adjustment: Int64 }

    /// Every invariant, after the payments left to expire have had their time and the catalog
    /// and the statistics have caught up (each waited for up to 30 s).
    func check(_ api: API, _ admin: String) async throws -> [String] {
        let state = self.state.withLock { $0 }
        var problems: [String] = []
        if let last = state.expiring.map(\.at).max() {
            let wait = last.timeIntervalSinceNow + 3
            if wait > 0 { try await Task.sleep(for: .milliseconds(Int(wait * 1000))) }
        }
        for (id, _) in state.expiring {
            let payment = try await api.require([200], .GET, "/v1/payments/\(id)", token: admin).decode(Payment.self)
            if payment.status != .expired {
                problems.append("payment \(id) is \(payment.status.rawValue) after its time")
            }
        }
        // Completed less refunded is each store's revenue, once the read model has caught up.
        let from = LoadGen.day(Date().addingTimeInterval(-86_400))
        let to = LoadGen.day(Date().addingTimeInterval(86_400))
        for (index, store) in stores.enumerated() {
            let expected =
                state.completed.values.filter { $0.store == index }.reduce(0) { $0 + $1.amount }
                - state.refunds[index, default: 0]
            var revenue: Int64 = -1
            for _ in 0..<60 {
                revenue = try await api.require(
                    [200], .GET, "/v1/stores/\(store)/stats?from=\(from)&to=\(to)", token: admin
                ).decode(Totals.self).totals.revenue
                if revenue == expected { break }
                try await Task.sleep(for: .milliseconds(500))
            }
            if revenue != expected {
                problems.append("store \(store): statistics revenue \(revenue), completed less refunded \(expected)")
            }
            // Receipts 1..n, one per completed payment and refund.
            var numbers: [Int64] = []
            var cursor: String?
            repeat {
                let page = try await api.require(
                    [200], .GET, "/v1/stores/\(store)/receipts?limit=200" + (cursor.map { "&cursor=\($0)" } ?? ""),
                    token: admin
                ).decode(Page<Numbered>.self)
                numbers += page.data.map(\.number)
                cursor = page.nextCursor
            } while cursor != nil
            let count = state.completed.values.filter { $0.store == index }.count + state.refundCount[index, default: 0]
            if numbers.sorted() != (count == 0 ? [] : Array(1...Int64(count))) {
                problems.append("store \(store): \(numbers.count) receipts, not numbered 1 to \(count) without a gap")
            }
        }
        // Every reservation ended: committed when its payment completed, given back otherwise.
        let reservations = Array(state.reservations)
        try await withThrowingTaskGroup(of: String?.self) { group in
            for (index, (id, sold)) in reservations.enumerated() {
                if index >= 16, let found = try await group.next() { if let found { problems.append(found) } }
                group.addTask {
                    for _ in 0..<60 {
                        let held = try await api.require([200], .GET, "/v1/reservations/\(id)", token: admin)
                            .decode(Held.self)
                        let ended = sold ? held.status == "committed" : ["released", "expired"].contains(held.status)
                        if ended { return nil }
                        try await Task.sleep(for: .milliseconds(500))
                    }
                    return "reservation \(id) did not end as its payment did (\(sold ? "sold" : "not sold"))"
                }
            }
            for try await found in group { if let found { problems.append(found) } }
        }
        // Each product: opening stock less sold plus restocked, its ledger's sum, nothing held.
        var sold: [String: Int64] = [:]
        for sale in state.completed.values { for (id, units) in sale.units { sold[id, default: 0] += units } }
        for product in shelves.joined() {
            let stock = try await api.require([200], .GET, "/v1/products/\(product.id)", token: admin).decode(
                Stock.self)
            let expected =
                Int64(product.quantity) - sold[product.id, default: 0] + state.restocked[product.id, default: 0]
            if stock.quantity != expected || stock.reserved != 0 {
                problems.append(
                    "product \(product.id): \(stock.quantity) on hand and \(stock.reserved) held; expected \(expected) and 0"
                )
            }
            var sum: Int64 = 0
            var cursor: String?
            repeat {
                let page = try await api.require(
                    [200], .GET,
                    "/v1/products/\(product.id)/stock-ledger?limit=200" + (cursor.map { "&cursor=\($0)" } ?? ""),
                    token: admin
                ).decode(Page<Entry>.self)
                sum += page.data.reduce(0) { $0 + $1.adjustment }
                cursor = page.nextCursor
            } while cursor != nil
            if sum != stock.quantity {
                problems.append("product \(product.id): ledger sums to \(sum), has \(stock.quantity)")
            }
        }
        // Each customer's milestones, as what happened to them says.
        for (id, happened) in state.customers {
            let customer = try await api.require([200], .GET, "/v1/customers/\(id)", token: admin).decode(Customer.self)
            let milestones = customer.milestones
            if (milestones.firstCardLinkedAt != nil) != happened.linked
                || (milestones.firstPaymentAt != nil) != happened.paid
            {
                problems.append(
                    "customer \(id): milestones card linked \(milestones.firstCardLinkedAt != nil), paid "
                        + "\(milestones.firstPaymentAt != nil); expected \(happened.linked), \(happened.paid)")
            }
        }
        // No blocked card paid: each tap refused, and no payment of the store names one.
        if !state.blockedAnswers.isEmpty {
            problems.append(
                "taps of a blocked card answered \(state.blockedAnswers.prefix(5)) instead of 422 card_blocked")
        }
        for (index, store) in stores.enumerated() {
            let blocked = Set(cards[index].filter(\.blocked).map(\.id))
            var cursor: String?
            repeat {
                let page = try await api.require(
                    [200], .GET,
                    "/v1/stores/\(store)/payments?method=nfc&limit=200" + (cursor.map { "&cursor=\($0)" } ?? ""),
                    token: admin
                ).decode(Page<Payment>.self)
                for payment in page.data where payment.cardID.map(blocked.contains) == true {
                    problems.append("payment \(payment.id) was paid by blocked card \(payment.cardID!)")
                }
                cursor = page.nextCursor
            } while cursor != nil
        }
        // Each store's activity: every payment completed, refund, card linked and product created
        // once, and the shift begun, once the notifications service has caught up (up to 30 s).
        for (index, store) in stores.enumerated() {
            var expected: [String: [String]] = [
                "payment": state.completed.filter { $0.value.store == index }.map(\.key),
                "refund": state.refundIDs[index, default: []], "card_linked": state.linkedCards[index, default: []],
                "product_created": shelves[index].map(\.id), "clock_in": ["the shift"],
            ]
            for key in expected.keys { expected[key]?.sort() }
            var found: [String: [String]] = [:]
            for _ in 0..<60 {
                found = try await activity(api, admin, store)
                if found == expected { break }
                try await Task.sleep(for: .milliseconds(500))
            }
            for (type, ids) in expected where found[type] != ids {
                problems.append(
                    "store \(store): \(found[type]?.count ?? 0) \(type) entries in its activity, "
                        + "\(Set(found[type] ?? []).count) different; expected \(ids.count)")
            }
            let unexpected = Set(found.keys).subtracting(expected.keys)
            if !unexpected.isEmpty { problems.append("store \(store): activity of types \(unexpected.sorted())") }
        }
        if state.uncertain > 0 { problems.append("\(state.uncertain) payments were rung up without an answer") }
        return problems
    }
}
