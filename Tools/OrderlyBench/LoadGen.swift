import ArgumentParser
import AsyncHTTPClient
import Contracts
import Domain
import Foundation
import Histogram
import NIOCore
import NIOHTTP1
import Synchronization

/// `orderly loadgen`: drives a running suite through its public API the way stores and couriers
/// do, then checks that nothing was lost or doubled.
///
/// Three phases with the same clients: the ceiling (`GET /v1/me`, the gateway's cheapest
/// authenticated route), order creation alone, and the mix (creations, a share of them sent
/// again with the same `Idempotency-Key`, lines added, statuses advanced, couriers racing to
/// claim, long-polls). Then the invariants are checked against the API, and throughput and
/// latency percentiles are printed per operation. Exits 1 when an invariant fails.
struct LoadGen: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "loadgen",
        abstract: "Drive a running Orderly suite like its apps do and check the invariants afterwards.")

    @Option(help: "The gateway's base URL.")
    var url = "http://127.0.0.1:8080"

    @Option(help: "An admin's e-mail (sets up stores and users).")
    var adminEmail = "admin@orderly.local"

    @Option(help: "Environment variable holding the admin's password.")
    var adminPasswordVariable = "ORDERLY_BOOTSTRAP_ADMIN_PASSWORD"

    @Option(help: "Stores to create, each with one staff member.")
    var stores = 4

    @Option(help: "Couriers to create and put on duty.")
    var couriers = 8

    @Option(
        help:
            "What to drive: orders (creation, the mix, couriers), catalog (reservations), pos (payments), notifications (streams and long-polls) or marketplace (customers check out and pay, stores and couriers serve them)."
    )
    var workload: Workload = .orders

    @Option(help: "Store users signed in and listening (notifications workload).")
    var users = 1000

    @Option(help: "Orders created a second (notifications workload).")
    var rate = 20

    @Option(help: "Stores given a webhook endpoint on a receiver that loadgen runs (notifications workload).")
    var webhooks = 0

    @Option(help: "Concurrent clients (each with its own keep-alive connection).")
    var clients = 64

    @Option(help: "Seconds each phase runs.")
    var seconds: Double = 15

    @Option(help: "Stop the mix after this many operations (instead of after --seconds).")
    var count: Int?

    @Option(help: "Share of created orders sent a second time with the same Idempotency-Key.")
    var retryShare = 0.1

    @Option(help: "Seconds to wait for every order's notification to reach its store's inbox.")
    var inboxWait: Double = 120

    @Option(help: "The suite's processes as name:pid pairs, to report their CPU per created order.")
    var processes = ProcessInfo.processInfo.environment["ORDERLY_PROCESSES"] ?? ""

    @Option(
        help: "A shell command run while orders are created, stopped with SIGINT when that phase ends (a profiler).")
    var duringCreation: String?

    func validate() throws {
        guard (1...100).contains(stores) else { throw ValidationError("--stores must be from 1 to 100") }
        guard (1...1000).contains(couriers) else { throw ValidationError("--couriers must be from 1 to 1000") }
        guard (2...10_000).contains(users) else { throw ValidationError("--users must be from 2 to 10000") }
        guard (1...1000).contains(rate) else { throw ValidationError("--rate must be from 1 to 1000") }
        guard (0...stores).contains(webhooks) else { throw ValidationError("--webhooks must be from 0 to --stores") }
        guard (2...1024).contains(clients) else { throw ValidationError("--clients must be from 2 to 1024") }
        guard seconds > 0, seconds <= 3600 else { throw ValidationError("--seconds must be from 0 to 3600") }
        guard count.map({ $0 > 0 }) ?? true else { throw ValidationError("--count must be positive") }
        guard (0...1).contains(retryShare) else { throw ValidationError("--retry-share must be from 0 to 1") }
        guard URL(string: url)?.host != nil else { throw ValidationError("--url must be an http URL") }
        guard ProcessInfo.processInfo.environment[adminPasswordVariable] != nil else {
            throw ValidationError("set \(adminPasswordVariable) to the admin's password")
        }
    }

    func run() async throws {
        var configuration = HTTPClient.Configuration()
        // Each listener of the notifications workload holds a connection of its own.
        let connections = (workload == .notifications ? users : 0) + clients + 16
        configuration.connectionPool = .init(
            idleTimeout: .seconds(120), concurrentHTTP1ConnectionsPerHostSoftLimit: connections)
        configuration.timeout = .init(connect: .seconds(10), read: .seconds(60))
        let http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        do {
            let api = API(http: http, base: url.hasSuffix("/") ? String(url.dropLast()) : url)
            let failures =
                switch workload {
                case .orders: try await drive(api)
                case .catalog: try await driveCatalog(api)
                case .pos: try await drivePayments(api)
                case .notifications: try await driveNotifications(api)
                case .marketplace: try await driveMarketplace(api)
                }
            try await http.shutdown()
            if failures > 0 { throw ExitCode(1) }
        } catch {
            try? await http.shutdown()
            throw error
        }
    }

    private func drive(_ api: API) async throws -> Int {
        let password = ProcessInfo.processInfo.environment[adminPasswordVariable]!
        say("setting up \(stores) stores with a staff member each and \(couriers) couriers on duty")
        let cast = try await Cast.create(api, admin: adminEmail, password: password, stores: stores, couriers: couriers)
        let record = RunRecord()
        var report = Report()

        say("phase 1/3: the ceiling, GET /v1/me, \(clients) clients, \(seconds)s")
        let ceiling = try await phase("ceiling", cast: cast) { worker, stats in
            try await stats.time("GET /v1/me") { try await api.send(.GET, "/v1/me", token: worker.staff) }
        }
        report.add(ceiling)

        say("phase 2/3: order creation, \(clients) clients, \(seconds)s")
        let suite = ProcessCPUTimes.parse(processes)
        let cpuBefore = ProcessCPUTimes.now(suite)
        let observer = try duringCreation.map { command in
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", command]
            try process.run()
            return process
        }
        let creation = try await phase("creation", cast: cast) { worker, stats in
            try await worker.create(api, record: record, stats: &stats, retry: false)
        }
        let cpuAfter = ProcessCPUTimes.now(suite)
        if let observer {
            observer.interrupt()
            observer.waitUntilExit()
        }
        report.add(creation)
        let created = Int(creation.histograms["POST /v1/orders"]?.totalCount ?? 0)
        let createCPU = cpuBefore.perOperation(until: cpuAfter, operations: created)
        if !suite.isEmpty {
            let each = createCPU.each.map { String(format: "%@ %.3f", $0.0, $0.1) }.joined(separator: ", ")
            say(String(format: "  CPU per created order: %.3f ms (", createCPU.total) + each + ")")
            say(
                "  load generator: "
                    + cpuBefore.machine.report(until: cpuAfter.machine, operations: created, unit: "order"))
        }

        say("phase 3/3: the mix, \(clients) clients, \(count.map { "\($0) operations" } ?? "\(seconds)s")")
        let mix = try await phase("mix", cast: cast, limit: count) { worker, stats in
            try await worker.mixStep(api, record: record, stats: &stats, retryShare: retryShare)
        }
        report.add(mix)

        say("checking the invariants")
        let outcome = try await Invariants(api: api, cast: cast, record: record, inboxWait: inboxWait).check()
        let failures = outcome.failures
        for failure in failures.prefix(20) { say("  FAILED: \(failure)") }
        if failures.count > 20 { say("  … and \(failures.count - 20) more") }
        if failures.isEmpty { say("  every invariant holds") }

        report.print()
        let createRate = creation.rate("POST /v1/orders")
        let ceilingRate = ceiling.rate("GET /v1/me")
        let p99 = creation.histograms["POST /v1/orders"].map { Double($0.valueAtPercentile(99)) / 1000 } ?? 0
        say(
            String(
                format:
                    "create_rps=%.0f ceiling_rps=%.0f ratio=%.3f create_p99_ms=%.1f create_cpu_ms=%.3f invariant_failures=%d",
                createRate, ceilingRate, ceilingRate > 0 ? createRate / ceilingRate : 0, p99, createCPU.total,
                failures.count))
        say(
            "acked=\(record.orders.count) lost=\(outcome.lost) duplicated=\(outcome.duplicated) notifications_missing=\(outcome.notificationsMissing) errors_5xx=\([ceiling, creation, mix].map(\.serverErrors).reduce(0, +))"
        )
        return failures.count
    }

    /// Runs `step` in a loop on every client until the phase's time (or `limit` steps) is up,
    /// with a progress line every two seconds.
    func phase(
        _ name: String, cast: Cast, limit: Int? = nil,
        _ step: @escaping @Sendable (Worker, inout Stats) async throws -> Void
    ) async throws -> PhaseResult {
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        let counters = Counters()
        let started = ContinuousClock.now
        let progress = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(2))
                if Task.isCancelled { break }
                let elapsed = (ContinuousClock.now - started).timeInterval
                let done = counters.steps.load(ordering: .relaxed)
                say(
                    String(
                        format: "  %@ %.0fs: %d operations (%.0f/s), %d unexpected answers", name, elapsed, done,
                        Double(done) / elapsed, counters.errors.load(ordering: .relaxed)))
            }
        }
        defer { progress.cancel() }
        let clients = self.clients
        let results = try await withThrowingTaskGroup(of: Stats.self) { group in
            for index in 0..<clients {
                let worker = cast.worker(index)
                group.addTask {
                    var stats = Stats()
                    while ContinuousClock.now < deadline {
                        if let limit, counters.steps.add(1, ordering: .relaxed).newValue > limit { break }
                        let before = stats.unexpected
                        try await step(worker, &stats)
                        if limit == nil { counters.steps.add(1, ordering: .relaxed) }
                        if stats.unexpected > before {
                            counters.errors.add(stats.unexpected - before, ordering: .relaxed)
                        }
                    }
                    return stats
                }
            }
            var all = Stats()
            for try await stats in group { all.merge(stats) }
            return all
        }
        return PhaseResult(
            name: name, duration: (ContinuousClock.now - started).timeInterval, histograms: results.histograms,
            unexpected: results.unexpectedByOperation, serverErrors: results.serverErrors)
    }
}
