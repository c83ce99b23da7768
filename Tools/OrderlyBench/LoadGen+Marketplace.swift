import AsyncHTTPClient
import Contracts
import Domain
import Foundation
import NIOCore
import NIOHTTP1
import Runtime
import Synchronization

/// `orderly loadgen --workload marketplace`: the food-delivery app's customers against the
/// suite, then the stores and couriers who serve them, then the invariants.
///
/// Setup: stores open all week (every other one accepting orders by itself) with five products
/// each, stock-tracked, with a size (exactly one) and extras (up to two); couriers on duty; one
/// customer per client, signed up with a saved address. Phase 1, measured: each step browses
/// (the open stores now and then, a store's menu each time) and checks out one to three lines
/// with options, paying by card (the payment, then the provider's signed report) or in cash on
/// delivery, with a tip. Phase 2: the stores accept (where they do not by themselves), prepare
/// and mark ready; couriers claim, pick up and deliver, collecting cash. The invariants, read back
/// through the API: every order delivered and paid exactly its total, by one completed payment
/// of its total and tip; each store's statistics revenue is its completed payments; no stock
/// oversold nor left held (each product's quantity is its opening stock less what its delivered
/// lines sold; what an interrupted checkout held comes back when its hold expires, which the
/// check waits for when it is at most two minutes, `ORDERLY_ORDER_LINE_HOLD_SECONDS`); each customer heard each of the five status changes of each order exactly once;
/// the ledger adds up (`checkLedger`).
extension LoadGen {
    func driveMarketplace(_ api: API) async throws -> Int {
        let password = ProcessInfo.processInfo.environment[adminPasswordVariable]!
        let providers = try ProviderSecrets.read(from: try await ConfigurationSource.load(arguments: []))
        guard let (provider, secret) = providers.min(by: { $0.key < $1.key }) else {
            throw LoadGenError(
                "set ORDERLY_PAYMENT_PROVIDER_SECRETS (make run sets one) to sign the provider's reports")
        }
        say("setting up \(stores) stores, \(couriers) couriers on duty and \(clients) customers")
        let cast = try await Cast.create(api, admin: adminEmail, password: password, stores: stores, couriers: couriers)
        let market = try await Marketplace.open(api, cast: cast, customers: clients, provider: provider, secret: secret)

        say("phase 1/2: customers browse and check out, \(clients) clients, \(seconds)s")
        let suite = ProcessCPUTimes.parse(processes)
        let cpuBefore = ProcessCPUTimes.now(suite)
        let machine = CPUTimes.now()
        let checkouts = try await phase("checkout", cast: cast) { worker, stats in
            try await market.checkout(api, customer: worker.index, stats: &stats)
        }
        let cpuAfter = ProcessCPUTimes.now(suite)
        say("  " + (machine.machineShares(until: CPUTimes.now()) ?? "no /proc/stat"))
        let placed = market.placedCount
        let perCheckout = cpuBefore.perOperation(until: cpuAfter, operations: placed)
        if !suite.isEmpty {
            let each = perCheckout.each.map { String(format: "%@ %.3f", $0.0, $0.1) }.joined(separator: ", ")
            say(String(format: "  CPU per checkout (with its payment): %.3f ms (", perCheckout.total) + each + ")")
        }

        say("phase 2/2: stores accept and prepare, couriers claim and deliver \(placed) orders")
        let started = ContinuousClock.now
        try await market.fulfil(api, cast: cast, within: .seconds(Int(inboxWait)))
        say(String(format: "  done in %.1fs", (ContinuousClock.now - started).timeInterval))

        say("checking the invariants")
        let failures =
            try await market.check(api, cast.admin, wait: .seconds(Int(inboxWait)))
            + market.checkLedger(api, cast: cast, wait: .seconds(Int(inboxWait)))
        for failure in failures.prefix(20) { say("  FAILED: \(failure)") }
        if failures.count > 20 { say("  … and \(failures.count - 20) more") }
        if failures.isEmpty { say("  every invariant holds") }
        var report = Report()
        report.add(checkouts)
        report.print()
        say(market.summary)
        let p99 = checkouts.histograms[Marketplace.checkoutOperation].map { Double($0.valueAtPercentile(99)) / 1000 }
        say(
            String(
                format: "checkouts_per_s=%.1f p99_ms=%.1f cpu_ms_per_checkout=%@ invariant_failures=%d",
                Double(placed) / checkouts.duration, p99 ?? 0,
                suite.isEmpty ? "unmeasured" : String(format: "%.3f", perCheckout.total), failures.count))
        return failures.count
    }
}
