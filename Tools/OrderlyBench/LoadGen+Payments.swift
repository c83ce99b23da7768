import AsyncHTTPClient
import Contracts
import Domain
import Foundation
import NIOCore
import NIOHTTP1
import Runtime
import Synchronization

/// `orderly loadgen --workload pos`: point-of-sale payments against the suite, measured beside
/// order creation in the same run, then the invariants.
///
/// Phases with the same clients: order creation (the reference); the till, where each step
/// rings up one to three catalog products and pays: in cash (the cashier confirms), by card
/// (the provider's signed reports: confirmed, processing, completed), by an NFC card tapped (a
/// customer's, or now and then the store's blocked one, which must be refused), by a card that
/// fails, a payment left to expire, one cancelled, or a cash sale partly refunded with a unit
/// restocked; now and then a new customer is made and a new card linked to them; then 90-day
/// statistics reads. The invariants, read back through the API: completed less
/// refunded equals each store's statistics revenue; every reservation ended committed (its
/// payment completed) or released; each product's quantity is its opening stock less what
/// completed payments sold plus what refunds restocked, and the sum of its ledger, with
/// nothing held; each store's receipts are numbered 1..n without a gap, one per completed
/// payment and refund; each customer's milestones say what happened to them (a card linked, a
/// payment completed); no blocked card ever paid; each store's activity has every completed
/// payment, refund, card linked, product created and the shift begun exactly once.
extension LoadGen {
    func drivePayments(_ api: API) async throws -> Int {
        let password = ProcessInfo.processInfo.environment[adminPasswordVariable]!
        let providers = try ProviderSecrets.read(from: try await ConfigurationSource.load(arguments: []))
        guard let (provider, secret) = providers.min(by: { $0.key < $1.key }) else {
            throw LoadGenError(
                "set ORDERLY_PAYMENT_PROVIDER_SECRETS (make run sets one) to sign the provider's reports")
        }
        say("setting up \(stores) stores with a staff member and 20 products each")
        let cast = try await Cast.create(api, admin: adminEmail, password: password, stores: stores, couriers: 1)
        // Each store's staff member refunds what they took, and takes cash into an open shift's
        // drawer.
        for (store, staff) in zip(cast.stores, cast.staff) {
            _ = try await api.require(
                [200], .PATCH, "/v1/stores/\(store)", token: cast.admin, body: ["staff_refund_limit": 10_000_000])
            _ = try await api.require([201], .POST, "/v1/shifts/clock-in", token: staff, body: [String: Int]())
        }
        var shelves: [[StockRun.Product]] = []
        for store in cast.stores {
            var shelf: [StockRun.Product] = []
            for index in 0..<20 {
                shelf.append(try await StockRun.product(api, cast.admin, store, "Item \(index)", quantity: 1_000_000))
            }
            shelves.append(shelf)
        }
        say("registering 10 customers with a card each, and a blocked card, in each store")
        var cards: [[Till.TappedCard]] = []
        var customers: [String: Till.Milestones] = [:]
        for (store, staff) in zip(cast.stores, cast.staff) {
            var wallet: [Till.TappedCard] = []
            for index in 0..<11 {
                let customer = try await api.require(
                    [201], .POST, "/v1/stores/\(store)/customers", token: staff,
                    body: CustomerDraft(name: "Customer \(index)", phone: "050 555 \(1000 + index)")
                ).decode(Customer.self)
                customers[customer.id.description] = Till.Milestones(linked: true)
                let blocked = index == 10
                let card = try await api.require(
                    [201], .POST, "/v1/stores/\(store)/cards", token: staff,
                    body: CardDraft(
                        uid: Till.newUID(), status: blocked ? .blocked : .active, customerID: customer.id)
                ).decode(Card.self)
                wallet.append(Till.TappedCard(id: card.id, uid: card.uid, customer: customer.id, blocked: blocked))
            }
            cards.append(wallet)
        }
        let till = Till(
            stores: cast.stores, shelves: shelves, cards: cards, customers: customers, provider: provider,
            secret: secret)

        say("phase 1/3: order creation, the reference, \(clients) clients, \(seconds)s")
        var machine = CPUTimes.now()
        let creation = try await phase("creation", cast: cast) { worker, stats in
            try await worker.create(api, record: RunRecord(), stats: &stats, retry: false)
        }
        say("  " + (machine.machineShares(until: CPUTimes.now()) ?? "no /proc/stat"))

        say("phase 2/3: the till, \(clients) clients, \(seconds)s")
        machine = CPUTimes.now()
        let sales = try await phase("till", cast: cast) { worker, stats in
            try await till.step(api, worker.store, worker.staff, stats: &stats)
        }
        say("  " + (machine.machineShares(until: CPUTimes.now()) ?? "no /proc/stat"))
        let completed = Double(till.completions) / sales.duration

        say("phase 3/3: 90-day statistics reads, \(clients) clients, \(seconds)s")
        let today = Self.day(Date())
        let ninetyDaysAgo = Self.day(Date().addingTimeInterval(-89 * 86_400))
        machine = CPUTimes.now()
        let reads = try await phase("stats", cast: cast) { worker, stats in
            try await stats.time("GET stats (90 days)") {
                try await api.send(
                    .GET, "/v1/stores/\(cast.stores[worker.store])/stats?from=\(ninetyDaysAgo)&to=\(today)",
                    token: cast.admin)
            }
        }
        say("  " + (machine.machineShares(until: CPUTimes.now()) ?? "no /proc/stat"))

        say("checking the invariants")
        let failures = try await till.check(api, cast.admin)
        for failure in failures.prefix(20) { say("  FAILED: \(failure)") }
        if failures.count > 20 { say("  … and \(failures.count - 20) more") }
        if failures.isEmpty { say("  every invariant holds") }
        var report = Report()
        for result in [creation, sales, reads] { report.add(result) }
        report.print()
        let createRate = creation.rate("POST /v1/orders")
        let statsP99 = reads.histograms["GET stats (90 days)"].map { Double($0.valueAtPercentile(99)) / 1000 } ?? 0
        say(till.summary + String(format: " create_rps=%.0f", createRate))
        say(
            String(
                format: "payments_rps=%.0f ratio=%.3f stats_ms=%.1f invariant_failures=%d", completed,
                createRate > 0 ? completed / createRate : 0, statsP99, failures.count))
        return failures.count
    }

    /// A day as `YYYY-MM-DD` in UTC, widened by the invariants by a day either way.
    static func day(_ date: Date) -> String { String(RFC3339.format(date).prefix(10)) }
}
