import ArgumentParser
import Domain
import Events
import Foundation
import JSON
import Logging
import Redis
import SQLKit
import Storage

/// `orderly bench-storage`: committed idempotent writes per second on SQLite and PostgreSQL,
/// and events per second from the outbox to a consumer's inbox.
///
/// One write is what a service does for a client's `POST` with an `Idempotency-Key`: one
/// transaction that holds the key, finds no record for it, inserts a row, writes an outbox event
/// and stores the response in the key's idempotency record. The event phase writes a backlog
/// of events first, then times the relay publishing them to a Redis stream and a consumer
/// group reading them and recording each in its own database's inbox, until every one is in.
/// Each figure comes with the CPU time this process spent per operation and the share of the
/// machine's time the hypervisor took meanwhile (`CPUTimes`): on a busy host a rate drops with
/// that share, which the CPU time per operation does not count.
struct BenchStorage: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench-storage",
        abstract: "Measure storage transactions per second (SQLite, PostgreSQL) and outbox-to-inbox events per second.")

    @Option(help: "PostgreSQL server URL (a scratch database is created on it and dropped afterwards).")
    var postgresURL: String

    @Option(help: "Redis URL, redis://host:port (its stream orderly:events:bench is used).")
    var redisURL: String

    @Option(help: "Seconds each transaction measurement runs.")
    var seconds: Double = 5

    @Option(help: "Concurrent writers.")
    var concurrency: Int = 16

    @Option(help: "Events in the event phase's backlog.")
    var events: Int = 50_000

    @Option(help: "Directory for the SQLite files (removed afterwards).")
    var directory: String = FileManager.default.temporaryDirectory.appendingPathComponent("orderly-bench-storage").path

    func validate() throws {
        guard seconds > 0, seconds <= 600 else { throw ValidationError("--seconds must be between 0 and 600") }
        guard (1...1024).contains(concurrency) else {
            throw ValidationError("--concurrency must be between 1 and 1024")
        }
        guard (1...10_000_000).contains(events) else {
            throw ValidationError("--events must be between 1 and 10000000")
        }
        guard RedisConfiguration(url: redisURL) != nil else {
            throw ValidationError("--redis-url must be redis://host:port")
        }
        do { _ = try DatabaseLocation(url: postgresURL) } catch { throw ValidationError("--postgres-url: \(error)") }
    }

    func run() async throws {
        var logger = Logger(label: "bench-storage")
        logger.logLevel = .warning
        try? FileManager.default.removeItem(atPath: directory)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        say(
            "cores: \(ProcessInfo.processInfo.activeProcessorCount); \(concurrency) writers, \(seconds)s per measurement"
        )
        say("one transaction = look up an idempotency key, then insert a row + an outbox event + the key's record")

        // The default first, each setting on a file of its own.
        var sqliteRates: [String: Rate] = [:]
        for synchronous in ["full", "normal"] {
            let sqlite = try await Database.open(
                try DatabaseLocation(url: "sqlite:\(directory)/bench-\(synchronous).sqlite?synchronous=\(synchronous)"),
                logger: logger)
            let rate = try await measureWrites(on: sqlite)
            await sqlite.close()
            sqliteRates[synchronous] = rate
            say(
                String(
                    format: "sqlite     %9.0f transactions/s  (WAL, synchronous=%@)", rate.perSecond,
                    synchronous.uppercased()))
            say("           \(rate.cost)")
        }

        let postgresRate = try await withScratchPostgres(logger: logger) {
            try await measureWrites(on: $0, uncounted: "the PostgreSQL server's")
        }
        say(
            String(
                format: "postgres   %9.0f transactions/s  (READ COMMITTED, the server's commit settings)",
                postgresRate.perSecond))
        say("           \(postgresRate.cost)")

        let eventRate = try await measureEvents(logger: logger)
        say(
            String(
                format: "events     %9.0f events/s        (%d events: relay → stream → consumer group → inbox)",
                eventRate.perSecond, events))
        say("           \(eventRate.cost)")
        say(
            String(
                format: "sqlite_tps=%.0f sqlite_normal_tps=%.0f postgres_tps=%.0f events_per_s=%.0f",
                sqliteRates["full"]!.perSecond, sqliteRates["normal"]!.perSecond, postgresRate.perSecond,
                eventRate.perSecond))
    }

    private static let migrations = [
        Migration(
            1, "bench orders",
            sql: ["CREATE TABLE bench_orders (id TEXT PRIMARY KEY, store_id TEXT NOT NULL, total BIGINT NOT NULL)"])
    ]

    /// A measured rate, and what it cost in CPU time (see `CPUTimes`).
    private struct Rate {
        var perSecond: Double
        var cost: String
    }

    /// Runs `concurrency` writers for `seconds` (after a short warm-up).
    private func measureWrites(on database: Database, uncounted: String? = nil) async throws -> Rate {
        try await database.migrate(scope: "bench", Self.migrations)
        let store = IdempotencyStore(database: database)
        let storeID = StoreID()
        let write: @Sendable () async throws -> Void = {
            // The row's id made as the services make theirs (`OrderID()`, time-ordered); the key
            // as a client would, at random.
            let id = OrderID().description
            let request = try IdempotentRequest(
                scope: "\(storeID):orders.create", key: UUID.random().lowercasedText,
                request: Array("POST /v1/orders {\"total\":1250}".utf8))
            _ = try await store.perform(request) { transaction -> BenchResponse in
                try await transaction.sql.raw(
                    "INSERT INTO bench_orders (id, store_id, total) VALUES (\(bind: id), \(bind: storeID.description), 1250)"
                ).run()
                transaction.publish(
                    DomainEvent(
                        type: "order.created", storeID: storeID, aggregateID: id,
                        payload: EventPayload(encodedJSON: #"{"total":1250}"#)))
                // The answer, stored with the record as a service's is.
                return BenchResponse(id: id)
            }
        }
        _ = try await runWriters(for: min(1, seconds / 4), write)
        let before = CPUTimes.now()
        let (count, elapsed) = try await runWriters(for: seconds, write)
        return Rate(
            perSecond: Double(count) / elapsed,
            cost: before.report(until: .now(), operations: count, unit: "transaction", uncounted: uncounted))
    }

    private func runWriters(for duration: Double, _ write: @escaping @Sendable () async throws -> Void) async throws
        -> (Int, Double)
    {
        let start = ContinuousClock.now
        let deadline = start + .milliseconds(Int(duration * 1000))
        let total = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<concurrency {
                group.addTask {
                    var done = 0
                    while ContinuousClock.now < deadline {
                        try await write()
                        done += 1
                    }
                    return done
                }
            }
            return try await group.reduce(0, +)
        }
        let elapsed = start.duration(to: .now)
        return (total, elapsed.timeInterval)
    }

    /// Creates a scratch database on the server, runs `body` on it, and drops it.
    private func withScratchPostgres<T: Sendable>(logger: Logger, _ body: (Database) async throws -> T) async throws
        -> T
    {
        let server = try DatabaseLocation(url: postgresURL)
        guard case .postgres(var settings) = server else { throw ValidationError("--postgres-url must be postgres://") }
        let name = "orderly_bench_\(UUID().uuidString.prefix(8).lowercased())"
        let admin = try await Database.open(server, logger: logger)
        try await admin.read { try await $0.raw("CREATE DATABASE \(unsafeRaw: name)").run() }
        settings.database = name
        settings.maximumConnections = max(settings.maximumConnections, concurrency * 2)
        do {
            let database = try await Database.open(.postgres(settings), logger: logger)
            let result: T
            do {
                result = try await body(database)
            } catch {
                await database.close()
                throw error
            }
            await database.close()
            try await admin.read { try await $0.raw("DROP DATABASE \(unsafeRaw: name) WITH (FORCE)").run() }
            await admin.close()
            return result
        } catch {
            try? await admin.read { try await $0.raw("DROP DATABASE IF EXISTS \(unsafeRaw: name) WITH (FORCE)").run() }
            await admin.close()
            throw error
        }
    }

    /// Writes `events` events into a producer's outbox (100 per transaction, untimed), then
    /// times the relay and a consumer until the consumer's inbox holds every one.
    private func measureEvents(logger: Logger) async throws -> Rate {
        let producer = try await Database.open(
            try DatabaseLocation(url: "sqlite:\(directory)/producer.sqlite"), logger: logger)
        let consumer = try await Database.open(
            try DatabaseLocation(url: "sqlite:\(directory)/consumer.sqlite"), logger: logger)
        try await producer.migrate(scope: "bench", Self.migrations)
        try await consumer.migrate(scope: "bench", Self.migrations)
        let storeID = StoreID()
        var written = 0
        while written < events {
            let batch = min(100, events - written)
            let first = written
            try await producer.transaction { transaction in
                for index in first..<(first + batch) {
                    transaction.publish(
                        DomainEvent(
                            type: "order.created", storeID: storeID, aggregateID: "order-\(index)",
                            payload: EventPayload(encodedJSON: "{\"total\":\(index)}")))
                }
            }
            written += batch
        }
        say("events     backlog of \(events) written; timing relay and consumer")

        let redisConfiguration = RedisConfiguration(url: redisURL)!
        let publishing = RedisClient(configuration: redisConfiguration)
        let consuming = RedisClient(configuration: redisConfiguration)
        try await publishing.send("DEL", RedisArgument(eventStream(of: "bench")))
        let relay = OutboxRelay(
            database: producer, publisher: EventPublisher(redis: publishing, service: "bench"), logger: logger)
        let reader = EventConsumer(
            redis: consuming,
            configuration: .init(
                stream: eventStream(of: "bench"), group: "bench-consumer", consumer: "bench-1", batchSize: 500,
                block: .milliseconds(100), concurrency: 64, executor: consumer.preferredExecutor),
            handlers: [
                "order.created": { event in try await consumer.applyOnce(event, consumer: "bench-consumer") { _ in } }
            ],
            logger: logger)

        let before = CPUTimes.now()
        let start = ContinuousClock.now
        let elapsed = try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await relay.run() }
            group.addTask { try await reader.run() }
            var applied = 0
            var lastReport = start
            while applied < events {
                try await Task.sleep(for: .milliseconds(20))
                applied =
                    try await consumer.read { sql in
                        try await sql.raw("SELECT COUNT(*) AS n FROM orderly_inbox").first()?.decode(
                            column: "n", as: Int.self)
                    } ?? 0
                if lastReport.duration(to: .now) > .seconds(2) {
                    lastReport = .now
                    say("events     \(applied) of \(events) in the inbox")
                }
            }
            let elapsed = start.duration(to: .now)
            group.cancelAll()
            return elapsed
        }
        let cost = before.report(until: .now(), operations: events, unit: "event", uncounted: "Redis's")
        await publishing.shutdown()
        await consuming.shutdown()
        await producer.close()
        await consumer.close()
        return Rate(perSecond: Double(events) / elapsed.timeInterval, cost: cost)
    }
}

/// What a benchmark write answers.
private struct BenchResponse: Codable, Sendable {
    var id: String
}
