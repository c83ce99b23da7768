import ArgumentParser
import Foundation
import Logging

/// `orderly-orders bench-order-lists`: how long order lists take on SQLite at a million orders. A
/// command of the orders service's own executable, since it loads orders through the service's
/// repository: the benchmarks' `orderly-bench` speaks only Wire and HTTP.
struct BenchOrderLists: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench-order-lists",
        abstract: "Load orders of one store into a new SQLite file and time filtered and deep list pages.")

    @Option(help: "Orders to load.")
    var orders = 1_000_000

    @Option(help: "Times each page is read (the median and the worst are printed).")
    var runs = 21

    @Option(help: "Directory for the SQLite file (removed afterwards).")
    var directory: String = FileManager.default.temporaryDirectory.appendingPathComponent("orderly-bench-lists").path

    func validate() throws {
        guard (10_000...50_000_000).contains(orders) else {
            throw ValidationError("--orders must be from 10000 to 50000000")
        }
        guard (1...1000).contains(runs) else { throw ValidationError("--runs must be from 1 to 1000") }
    }

    func run() async throws {
        var logger = Logger(label: "bench-order-lists")
        logger.logLevel = .warning
        try? FileManager.default.removeItem(atPath: directory)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        print("loading \(orders) orders of one store into SQLite (\(directory))")
        let timings = try await OrderListBenchmark.run(
            path: "\(directory)/orders.sqlite", count: orders, runs: runs, logger: logger,
            progress: { print("  \($0)") })
        for timing in timings {
            print(
                String(
                    format: "  %.2f ms median, %.2f ms worst of %d: %@ (%d rows)", timing.medianMilliseconds,
                    timing.worstMilliseconds, runs, timing.name, timing.rows))
        }
        print(
            String(
                format: "list_first_page_ms=%.2f list_deep_page_ms=%.2f", timings[0].medianMilliseconds,
                timings[1].medianMilliseconds))
    }
}
