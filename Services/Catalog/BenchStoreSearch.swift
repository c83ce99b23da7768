import ArgumentParser
import Foundation
import Logging
import Storage

/// `orderly-catalog bench-store-search`: how long the search of stores takes over many stores,
/// on SQLite and, given a URL, PostgreSQL. A command of the catalog's own executable, since it
/// loads stores through the catalog's repository and asks its handlers.
struct BenchStoreSearch: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench-store-search",
        abstract:
            "Load stores with delivery areas and dishes into new databases and time searches near a place and by words."
    )

    @Option(help: "Stores to load.")
    var stores = 10_000

    @Option(help: "Requests of each kind (their p50 and p99 are printed).")
    var queries = 1000

    @Option(help: "Directory for the SQLite file (removed afterwards).")
    var directory: String = FileManager.default.temporaryDirectory.appendingPathComponent("orderly-bench-search").path

    @Option(help: "A PostgreSQL database to load too (its catalog tables must not exist yet).")
    var postgresURL: String?

    func validate() throws {
        guard (100...1_000_000).contains(stores) else { throw ValidationError("--stores must be from 100 to 1000000") }
        guard (10...100_000).contains(queries) else { throw ValidationError("--queries must be from 10 to 100000") }
    }

    func run() async throws {
        var logger = Logger(label: "bench-store-search")
        logger.logLevel = .warning
        try? FileManager.default.removeItem(atPath: directory)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var engines: [(String, DatabaseLocation)] = [
            ("sqlite", .sqlite(path: "\(directory)/catalog.sqlite", synchronousFull: false))
        ]
        if let postgresURL { engines.append(("postgres", try DatabaseLocation(url: postgresURL))) }
        var summary: [String] = []
        var worst = 0.0
        for (engine, location) in engines {
            print("== \(engine): \(stores) stores")
            let before = MachineTicks.now()
            let timings = try await StoreSearchBenchmark.run(
                location, count: stores, queries: queries, logger: logger, progress: { print("  \($0)") })
            let steal = before.stolenPercent(until: MachineTicks.now())
            for timing in timings {
                print(
                    String(
                        format: "  p50 %.2f ms, p99 %.2f ms of %d, %d found: %@", timing.percentile(0.5),
                        timing.percentile(0.99), queries, timing.found, timing.name))
            }
            print(String(format: "  %.1f%% of the machine stolen by the hypervisor meanwhile", steal))
            summary.append(
                String(
                    format: "%@_near_q_p99_ms=%.2f %@_near_p99_ms=%.2f %@_q_p99_ms=%.2f %@_get_p99_ms=%.2f", engine,
                    timings[0].percentile(0.99), engine, timings[1].percentile(0.99), engine,
                    timings[2].percentile(0.99), engine, timings[3].percentile(0.99)))
            summary.append(String(format: "%@_steal_pct=%.1f", engine, steal))
            worst = max(worst, timings[0].percentile(0.99))
        }
        // The headline is the slower engine's.
        print(String(format: "near_q_p99_ms=%.2f ", worst) + summary.joined(separator: " ") + " stores=\(stores)")
    }
}

/// The machine's clock ticks in all and stolen by the hypervisor, from the first line of
/// `/proc/stat` (`cpu  user nice system idle iowait irq softirq steal …`); zero elsewhere.
struct MachineTicks {
    var total: UInt64
    var steal: UInt64

    static func now() -> MachineTicks {
        guard let text = try? String(contentsOfFile: "/proc/stat", encoding: .utf8),
            let line = text.split(separator: "\n").first
        else { return MachineTicks(total: 0, steal: 0) }
        let ticks = line.split(separator: " ").dropFirst().compactMap { UInt64($0) }
        return MachineTicks(total: ticks.prefix(8).reduce(0, +), steal: ticks.count > 7 ? ticks[7] : 0)
    }

    func stolenPercent(until later: MachineTicks) -> Double {
        let total = later.total &- self.total
        return total == 0 ? 0 : Double(later.steal &- steal) / Double(total) * 100
    }
}
