import AsyncHTTPClient
import Contracts
import Domain
import Foundation
import NIOHTTP1
import Synchronization

/// `orderly loadgen --workload catalog`: reservations against the suite's catalog, measured
/// beside order creation in the same run, then the stock invariants.
///
/// Phases with the same clients: order creation (the reference), reservations of one unit of
/// one hot product, then of one of 1,000 products. Each held reservation is then released, or
/// committed (one in ten), or left to expire two seconds later (one in twenty). Then every
/// client at once sells a scarce product of 20 units until it is out. The invariants, read
/// back through the API: no stock below zero or below what is held; each product's quantity is
/// its opening stock less the sales acknowledged, and the sum of its ledger; nothing is still
/// held; every reservation left alone has expired within the sweep interval of its time.
extension LoadGen {
    func driveCatalog(_ api: API) async throws -> Int {
        let password = ProcessInfo.processInfo.environment[adminPasswordVariable]!
        say("setting up \(stores) stores with a staff member each, and 1,002 products in the first")
        let cast = try await Cast.create(api, admin: adminEmail, password: password, stores: stores, couriers: 1)
        let store = cast.stores[0]
        let hot = try await StockRun.product(api, cast.admin, store, "Hot", quantity: 1_000_000)
        let spread = try await withThrowingTaskGroup(of: StockRun.Product.self) { group in
            for index in 0..<1000 {
                if index >= 16 { _ = try await group.next() }
                group.addTask {
                    try await StockRun.product(api, cast.admin, store, "Spread \(index)", quantity: 100_000)
                }
            }
            return try await group.reduce(into: [StockRun.Product]()) { $0.append($1) }
        }
        let scarce = try await StockRun.product(api, cast.admin, store, "Scarce", quantity: 20)
        let run = StockRun(products: [hot] + spread + [scarce])
        let staff = cast.staff[0]

        say("phase 1/4: order creation, the reference, \(clients) clients, \(seconds)s")
        var machine = CPUTimes.now()
        let creation = try await phase("creation", cast: cast) { worker, stats in
            try await worker.create(api, record: RunRecord(), stats: &stats, retry: false)
        }
        say("  " + (machine.machineShares(until: CPUTimes.now()) ?? "no /proc/stat"))

        var rates: [Double] = []
        for (number, name, choices) in [(2, "hot", [hot]), (3, "spread", spread)] {
            say("phase \(number)/4: reservations, \(name), \(clients) clients, \(seconds)s")
            machine = CPUTimes.now()
            let result = try await phase(name, cast: cast) { _, stats in
                try await run.reserveOnce(
                    api, staff, store, choices.randomElement()!, operation: "reserve (\(name))", stats: &stats)
            }
            say("  " + (machine.machineShares(until: CPUTimes.now()) ?? "no /proc/stat"))
            rates.append(result.rate("reserve (\(name))"))
        }

        say("phase 4/4: every client sells the scarce product (20 units) until it is out")
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<clients {
                group.addTask {
                    var stats = Stats()
                    var attempts = 0
                    while attempts < 1000, try await run.sellOne(api, staff, store, scarce, stats: &stats) {
                        attempts += 1
                    }
                }
            }
            try await group.waitForAll()
        }
        let sold = run.sold(of: scarce)

        say("checking the invariants")
        let failures = try await run.check(api, staff, scarceSold: sold)
        for failure in failures.problems.prefix(20) { say("  FAILED: \(failure)") }
        if failures.problems.isEmpty { say("  every invariant holds") }
        let createRate = creation.rate("POST /v1/orders")
        say(
            String(
                format:
                    "create_rps=%.0f reservations=%d committed=%d left_to_expire=%d scarce_sold=%d invariant_failures=%d",
                createRate, run.reservations, run.committedTotal, run.leftCount, sold, failures.problems.count))
        say(
            String(
                format: "reserve_hot_rps=%.0f reserve_spread_rps=%.0f ratio_hot=%.3f oversold=%d", rates[0], rates[1],
                createRate > 0 ? rates[0] / createRate : 0, failures.oversold))
        return failures.problems.count
    }
}
