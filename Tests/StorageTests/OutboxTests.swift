import Domain
import Events
import Foundation
import JSON
import Logging
import Redis
import SQLKit
import ServiceLifecycle
import Storage
import Synchronization
import TestSupport
import Testing

@Suite("Outbox relay")
struct OutboxTests {
    static let service = "notes"
    static let logger = Logger(label: "orderly.tests.outbox")
    static let migrations = [
        Migration(1, "notes", sql: ["CREATE TABLE notes (id TEXT PRIMARY KEY, seq BIGINT NOT NULL)"])
    ]

    /// Writes a note and its event; the event names the note's sequence number, taken early in
    /// the transaction, so commit order shows in the numbers.
    static func write(_ index: Int, to database: Database) async throws {
        try await database.transaction { transaction in
            let seq = try await transaction.nextSequence("notes")
            try await transaction.sql.raw("INSERT INTO notes (id, seq) VALUES (\(bind: "n\(index)"), \(bind: seq))")
                .run()
            transaction.publish(
                DomainEvent(
                    type: "note.created", storeID: nil, aggregateID: "n\(index)",
                    payload: try EventPayload(encoding: ["seq": seq, "index": Int64(index)])))
        }
    }

    /// The `seq` of every event in the stream, first occurrences only (a relay may publish a
    /// row again after a failure; consumers drop repeats by event id).
    static func publishedSequence(_ redis: RedisClient) async throws -> [Int] {
        let reply = try await redis.send("XRANGE", RedisArgument(eventStream(of: service)), "-", "+")
        var seen = Set<String>()
        var sequence: [Int] = []
        for entry in reply.elements ?? [] {
            guard let parts = entry.elements, parts.count == 2, let fields = parts[1].elements else { continue }
            var values: [String: String] = [:]
            var index = 0
            while index + 1 < fields.count {
                if let name = fields[index].text, let value = fields[index + 1].text { values[name] = value }
                index += 2
            }
            guard let id = values["id"], seen.insert(id).inserted, let payload = values["payload"],
                case .object(let object) = try JSONDecoder().decode(JSONValue.self, from: Data(payload.utf8)),
                case .int(let seq) = object["seq"]
            else { continue }
            sequence.append(Int(seq))
        }
        return sequence
    }

    static func relay(
        _ database: Database, _ redis: RedisClient, pollInterval: Duration = .seconds(60), batchSize: Int = 500
    ) -> OutboxRelay {
        OutboxRelay(
            database: database, publisher: EventPublisher(redis: redis, service: service),
            configuration: .init(batchSize: batchSize, pollInterval: pollInterval, maximumBackoff: .milliseconds(200)),
            logger: logger)
    }

    @Test("events reach the stream exactly in commit order", arguments: TestDatabase.kinds)
    func commitOrder(kind: Database.Kind) async throws {
        try await withRedis { redis, _ in
            try await TestDatabase.with(kind) { test in
                try await test.database.migrate(scope: "notes", Self.migrations)
                try await withThrowingTaskGroup(of: Void.self) { group in
                    // A long poll interval: only the commits' wake-ups can make this pass in time.
                    group.addTask { try await Self.relay(test.database, redis, batchSize: 37).run() }
                    try await withThrowingTaskGroup(of: Void.self) { writers in
                        for writer in 0..<8 {
                            writers.addTask {
                                for index in 0..<50 { try await Self.write(writer * 1000 + index, to: test.database) }
                            }
                        }
                        try await writers.waitForAll()
                    }
                    let done = try await waitUntil { try await Self.publishedSequence(redis).count >= 400 }
                    group.cancelAll()
                    #expect(done)
                }
                #expect(try await Self.publishedSequence(redis) == Array(1...400))
            }
        }
    }

    @Test("a Redis outage delays events but loses and reorders none", arguments: TestDatabase.kinds)
    func redisOutage(kind: Database.Kind) async throws {
        try await withRedis { redis, server in
            try await TestDatabase.with(kind) { test in
                try await test.database.migrate(scope: "notes", Self.migrations)
                let relay = Self.relay(test.database, redis)
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask { try await relay.run() }
                    for index in 0..<50 { try await Self.write(index, to: test.database) }
                    #expect(try await waitUntil { try await Self.publishedSequence(redis).count == 50 })
                    #expect(try await Self.publishedSequence(redis) == Array(1...50))

                    await server.stop()
                    // Writes go on while Redis is down; their events wait in the outbox, and a
                    // publish fails without marking any of them sent.
                    for index in 50..<100 { try await Self.write(index, to: test.database) }
                    await #expect(throws: (any Error).self) { try await relay.drain() }
                    #expect(try await relay.pendingCount() == 50)

                    // This Redis keeps nothing across a restart: the events it had are gone
                    // with it. The relay finds Redis's mark missing, publishes again the 50 it
                    // had sent (they are within the retention), then the 50 committed since.
                    try await server.start()
                    #expect(try await waitUntil { try await relay.pendingCount() == 0 })
                    group.cancelAll()
                }
                #expect(try await Self.publishedSequence(redis) == Array(1...100))
            }
        }
    }

    @Test(
        "events Redis acknowledged and then lost in a crash are published again, once, in order",
        arguments: TestDatabase.kinds)
    func redisLosesItsLastWrites(kind: Database.Kind) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("redis-\(UUID())").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let server = try await RedisServerProcess.start(directory: directory)
        let redis = RedisClient(configuration: server.configuration)
        defer { Task { await redis.shutdown() } }
        try await TestDatabase.with(kind) { test in
            try await test.database.migrate(scope: "notes", Self.migrations)
            // Polls often: after the crash nothing is written, so only a poll can notice.
            let relay = Self.relay(test.database, redis, pollInterval: .milliseconds(50))
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await relay.run() }
                for index in 0..<30 { try await Self.write(index, to: test.database) }
                #expect(try await waitUntil { try await Self.publishedSequence(redis).count == 30 })
                try await redis.send("SAVE")
                for index in 30..<50 { try await Self.write(index, to: test.database) }
                #expect(try await waitUntil { try await relay.pendingCount() == 0 })
                #expect(try await Self.publishedSequence(redis).count == 50)

                // Redis dies and comes back from its snapshot, without the last 20 entries.
                await server.kill()
                try await server.start()
                #expect(try await waitUntil { try await Self.publishedSequence(redis).count == 50 })
                #expect(try await waitUntil { try await relay.pendingCount() == 0 })
                group.cancelAll()
            }
        }
        #expect(try await Self.publishedSequence(redis) == Array(1...50))
        #expect(try await redis.send("XLEN", RedisArgument(eventStream(of: Self.service))).integer == 50)
        await server.stop()
    }

    @Test("two replicas' relays publish each event in order", arguments: TestDatabase.kinds)
    func replicas(kind: Database.Kind) async throws {
        try await withRedis { redis, _ in
            try await TestDatabase.with(kind) { test in
                try await test.database.migrate(scope: "notes", Self.migrations)
                let second = try await test.openAgain()
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask {
                        try await Self.relay(test.database, redis, pollInterval: .milliseconds(5), batchSize: 7).run()
                    }
                    group.addTask {
                        try await Self.relay(second, redis, pollInterval: .milliseconds(5), batchSize: 7).run()
                    }
                    try await withThrowingTaskGroup(of: Void.self) { writers in
                        writers.addTask { for index in 0..<100 { try await Self.write(index, to: test.database) } }
                        writers.addTask { for index in 100..<200 { try await Self.write(index, to: second) } }
                        try await writers.waitForAll()
                    }
                    #expect(try await waitUntil { try await Self.publishedSequence(redis).count >= 200 })
                    group.cancelAll()
                }
                await second.close()
                #expect(try await Self.publishedSequence(redis) == Array(1...200))
            }
        }
    }

    @Test(
        "the relay and a running consumer on the database's executor apply every event once",
        arguments: TestDatabase.kinds)
    func relayToInbox(kind: Database.Kind) async throws {
        try await withRedis { redis, _ in
            try await TestDatabase.with(kind) { test in
                let database = test.database
                try await database.migrate(scope: "notes", Self.migrations)
                let applied = Mutex(0)
                let consumer = EventConsumer(
                    redis: redis,
                    configuration: EventConsumerConfiguration(
                        stream: eventStream(of: Self.service), group: "readers", consumer: "reader-1", batchSize: 50,
                        block: .milliseconds(20), executor: database.preferredExecutor),
                    handlers: [
                        "note.created": { event in
                            // A transaction of the handler's own besides the inbox record.
                            let first = try await database.applyOnce(event, consumer: "readers") { transaction in
                                _ = try await transaction.nextSequence("readers")
                            }
                            if first { applied.withLock { $0 += 1 } }
                        }
                    ], logger: Self.logger)
                let group = ServiceGroup(
                    services: [Self.relay(database, redis), consumer], gracefulShutdownSignals: [],
                    logger: Self.logger)
                try await withThrowingTaskGroup(of: Void.self) { tasks in
                    tasks.addTask { try await group.run() }
                    try await withThrowingTaskGroup(of: Void.self) { writers in
                        for writer in 0..<4 {
                            writers.addTask {
                                for index in 0..<50 { try await Self.write(writer * 1000 + index, to: database) }
                            }
                        }
                        try await writers.waitForAll()
                    }
                    #expect(await waitUntil { applied.withLock { $0 } >= 200 })
                    await group.triggerGracefulShutdown()
                    try await tasks.waitForAll()
                }
                #expect(applied.withLock { $0 } == 200)
                let recorded = try await database.read { sql in
                    try await sql.raw("SELECT COUNT(*) AS n FROM orderly_inbox WHERE consumer = 'readers'").first()?
                        .decode(column: "n", as: Int.self)
                }
                #expect(recorded == 200)
                #expect(try await redis.xpendingCount(eventStream(of: Self.service), group: "readers") == 0)
            }
        }
    }

    @Test("graceful shutdown publishes what is pending", arguments: TestDatabase.kinds)
    func drainOnShutdown(kind: Database.Kind) async throws {
        try await withRedis { redis, _ in
            try await TestDatabase.with(kind) { test in
                try await test.database.migrate(scope: "notes", Self.migrations)
                let relay = Self.relay(test.database, redis)
                let group = ServiceGroup(services: [relay], gracefulShutdownSignals: [], logger: Self.logger)
                // Written before the relay starts, so that only its first look publishes it: a
                // commit's wake-up arriving after that look would send the relay looking again.
                try await Self.write(0, to: test.database)
                try await withThrowingTaskGroup(of: Void.self) { tasks in
                    tasks.addTask { try await group.run() }
                    // Once the relay has published the first event, it runs and waits.
                    #expect(try await waitUntil { try await Self.publishedSequence(redis) == [1] })
                    // Written through another connection, whose commits do not wake this relay,
                    // and it polls once a minute: only the drain at shutdown publishes them.
                    let other = try await test.openAgain()
                    for index in 1...20 { try await Self.write(index, to: other) }
                    await other.close()
                    #expect(try await relay.pendingCount() == 20)
                    await group.triggerGracefulShutdown()
                    try await tasks.waitForAll()
                }
                #expect(try await relay.pendingCount() == 0)
                #expect(try await Self.publishedSequence(redis) == Array(1...21))
            }
        }
    }
}
