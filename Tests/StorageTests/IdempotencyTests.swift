import Domain
import Events
import Foundation
import JSON
import Redis
import SQLKit
import Storage
import Synchronization
import TestSupport
import Testing

@Suite("Inbox and idempotency records")
struct IdempotencyTests {
    static let migrations = [
        Migration(1, "receipts", sql: ["CREATE TABLE receipts (id TEXT PRIMARY KEY, total BIGINT NOT NULL)"])
    ]

    final class Counter: Sendable {
        private let count = Atomic<Int>(0)
        func increment() { count.add(1, ordering: .relaxed) }
        var value: Int { count.load(ordering: .relaxed) }
    }

    struct Receipt: Codable, Hashable, Sendable {
        var id: String
        var total: Int
    }

    static func count(_ table: String, in database: Database) async throws -> Int {
        try await database.read { sql in
            try await sql.raw("SELECT COUNT(*) AS n FROM \(unsafeRaw: table)").first()?.decode(
                column: "n", as: Int.self)
        } ?? -1
    }

    static func request(_ key: String, body: String) throws -> IdempotentRequest {
        try IdempotentRequest(
            scope: "store-1:receipts.create", key: key, request: Array("POST /v1/receipts \(body)".utf8))
    }

    @Test("the inbox applies an event once however often it comes", arguments: TestDatabase.kinds)
    func inbox(kind: Database.Kind) async throws {
        try await TestDatabase.with(kind) { test in
            try await test.database.migrate(scope: "receipts", Self.migrations)
            let event = DomainEvent(type: "payment.captured", storeID: nil, aggregateID: "p1", payload: .null)
            let effect: @Sendable (Transaction) async throws -> Void = { transaction in
                try await transaction.sql.raw("INSERT INTO receipts (id, total) VALUES (\(bind: UUID().uuidString), 1)")
                    .run()
            }
            #expect(try await test.database.applyOnce(event, consumer: "receipts", effect))
            #expect(try await !test.database.applyOnce(event, consumer: "receipts", effect))
            // Another consumer group keeps its own record.
            #expect(try await test.database.applyOnce(event, consumer: "statistics", effect))
            // Concurrent deliveries of one new event: exactly one applies it.
            let fresh = DomainEvent(type: "payment.captured", storeID: nil, aggregateID: "p2", payload: .null)
            let applied = try await withThrowingTaskGroup(of: Bool.self) { group in
                for _ in 0..<6 {
                    group.addTask { try await test.database.applyOnce(fresh, consumer: "receipts", effect) }
                }
                return try await group.reduce(into: 0) { $0 += $1 ? 1 : 0 }
            }
            #expect(applied == 1)
            #expect(try await Self.count("receipts", in: test.database) == 3)
        }
    }

    @Test(
        "the inbox records a batch of events at once: what was applied before, and repeats within it, once",
        arguments: TestDatabase.kinds)
    func inboxBatch(kind: Database.Kind) async throws {
        try await TestDatabase.with(kind) { test in
            try await test.database.migrate(scope: "receipts", Self.migrations)
            let earlier = UUID.random()
            // More than one statement's worth, so the batch is recorded in parts.
            let fresh = (0..<700).map { _ in UUID.random() }
            let recorded = try await test.database.transaction { transaction in
                try await transaction.recordApplied(events: [earlier], consumer: "receipts")
            }
            #expect(recorded == [earlier])
            let batch = try await test.database.transaction { transaction in
                try await transaction.recordApplied(
                    events: [earlier] + fresh + [fresh[0], fresh[699]], consumer: "receipts")
            }
            #expect(batch == Set(fresh))
            let again = try await test.database.transaction { transaction in
                try await transaction.recordApplied(events: fresh, consumer: "receipts")
            }
            #expect(again.isEmpty)
            #expect(try await Self.count("orderly_inbox", in: test.database) == 701)
        }
    }

    @Test(
        "a key replays its response; with another request it is refused", arguments: TestDatabase.kinds)
    func replayAndReuse(kind: Database.Kind) async throws {
        try await TestDatabase.with(kind) { test in
            try await test.database.migrate(scope: "receipts", Self.migrations)
            let store = IdempotencyStore(database: test.database)
            let runs = Counter()
            let create: @Sendable (Transaction) async throws -> Receipt = { transaction in
                runs.increment()
                let receipt = Receipt(id: UUID().uuidString, total: 1250)
                try await transaction.sql.raw("INSERT INTO receipts (id, total) VALUES (\(bind: receipt.id), 1250)")
                    .run()
                return receipt
            }
            let first = try await store.perform(try Self.request("k1", body: "{\"total\":1250}"), create)
            let again = try await store.perform(try Self.request("k1", body: "{\"total\":1250}"), create)
            #expect(!first.replayed && again.replayed)
            #expect(first.response == again.response)
            #expect(runs.value == 1)

            let error = await #expect(throws: OrderlyError.self) {
                try await store.perform(try Self.request("k1", body: "{\"total\":9999}"), create)
            }
            #expect(error?.reason == .idempotencyKeyReused)
            #expect(error?.code.httpStatus == 422)
            #expect(try await Self.count("receipts", in: test.database) == 1)
        }
    }

    @Test("a request is refused while the first with its key runs", arguments: TestDatabase.kinds)
    func inProgress(kind: Database.Kind) async throws {
        try await TestDatabase.with(kind) { test in
            try await test.database.migrate(scope: "receipts", Self.migrations)
            let store = IdempotencyStore(database: test.database)
            let (started, startedSignal) = AsyncStream.makeStream(of: Void.self)
            let (release, releaseSignal) = AsyncStream.makeStream(of: Void.self)
            let request = try Self.request("k2", body: "{}")
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    _ = try await store.perform(request) { _ -> Receipt in
                        startedSignal.yield()
                        for await _ in release { break }
                        return Receipt(id: "r", total: 1)
                    }
                }
                for await _ in started { break }
                let error = await #expect(throws: OrderlyError.self) {
                    try await store.perform(request) { _ in Receipt(id: "other", total: 2) }
                }
                #expect(error?.reason == .requestInProgress)
                #expect(error?.code.httpStatus == 409)
                releaseSignal.yield()
                try await group.waitForAll()
            }
            #expect(try await store.perform(request) { _ in Receipt(id: "other", total: 2) }.response.id == "r")
        }
    }

    @Test("of concurrent requests with one key exactly one executes", arguments: TestDatabase.kinds)
    func concurrentSameKey(kind: Database.Kind) async throws {
        try await TestDatabase.with(kind) { test in
            try await test.database.migrate(scope: "receipts", Self.migrations)
            let store = IdempotencyStore(database: test.database)
            let runs = Counter()
            let refused = Counter()
            let request = try Self.request("k3", body: "{}")
            let outcomes = try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<8 {
                    group.addTask {
                        do {
                            let result = try await store.perform(request) { transaction -> Receipt in
                                runs.increment()
                                // The first request holds its key until every other one was refused.
                                _ = await waitUntil { refused.value == 7 }
                                try await transaction.sql.raw("INSERT INTO receipts (id, total) VALUES ('r3', 5)").run()
                                return Receipt(id: "r3", total: 5)
                            }
                            return result.replayed ? "replayed" : "executed"
                        } catch let error as OrderlyError {
                            refused.increment()
                            return error.reason?.rawValue ?? error.code.rawValue
                        }
                    }
                }
                return try await group.reduce(into: [String]()) { $0.append($1) }
            }
            #expect(runs.value == 1)
            #expect(outcomes.filter { $0 == "executed" }.count == 1)
            #expect(outcomes.filter { $0 == "request_in_progress" }.count == 7, "\(outcomes)")
            #expect(try await Self.count("receipts", in: test.database) == 1)
        }
    }

    @Test(
        "a failed request releases its key; an expired record is forgotten",
        arguments: TestDatabase.kinds)
    func failureAndExpiry(kind: Database.Kind) async throws {
        struct Declined: Error {}
        try await TestDatabase.with(kind) { test in
            try await test.database.migrate(scope: "receipts", Self.migrations)
            let store = IdempotencyStore(database: test.database)
            let request = try Self.request("k4", body: "{}")
            await #expect(throws: Declined.self) {
                try await store.perform(request) { _ -> Receipt in throw Declined() }
            }
            #expect(try await !store.perform(request) { _ in Receipt(id: "a", total: 1) }.replayed)

            let shortLived = IdempotencyStore(database: test.database, retention: .zero)
            let other = try Self.request("k5", body: "{}")
            let stored = Date.nowMilliseconds
            #expect(try await !shortLived.perform(other) { _ in Receipt(id: "b", total: 1) }.replayed)
            // Past its retention (once the clock has moved on) the key is new again, even with
            // another request.
            #expect(await waitUntil { Date.nowMilliseconds > stored })
            let changed = try Self.request("k5", body: "{\"other\":true}")
            let replaced = Date.nowMilliseconds
            #expect(try await !shortLived.perform(changed) { _ in Receipt(id: "c", total: 1) }.replayed)
            #expect(await waitUntil { Date.nowMilliseconds > replaced })
            try await shortLived.removeExpired()
            #expect(try await Self.count("orderly_idempotency", in: test.database) == 1)
        }
    }

    @Test(
        "a write answered as things are by then keeps only its reference, and reads records kept whole",
        arguments: TestDatabase.kinds)
    func replayByReference(kind: Database.Kind) async throws {
        struct Reference: Codable, Sendable { var id: String }
        try await TestDatabase.with(kind) { test in
            try await test.database.migrate(scope: "receipts", Self.migrations)
            let store = IdempotencyStore(database: test.database)
            let caller = UserID()
            // What a repeat is told now: the receipt as it is, read again by its id.
            let current = Receipt(id: "r1", total: 999)
            let replay = Replay<Receipt, Reference>(reference: { Reference(id: $0.id) }) { stored in
                #expect(stored.id == "r1")
                return current
            }
            let write = { @Sendable (key: String) in
                try await store.write(
                    key: key, caller: caller, scope: "receipts", request: ["total": 1], replay: replay
                ) {
                    _ in Receipt(id: "r1", total: 1)
                }
            }
            #expect(try await write("k6") == Receipt(id: "r1", total: 1))
            #expect(try await write("k6") == current)
            let kept = try await test.database.read { sql in
                try await sql.raw("SELECT response FROM orderly_idempotency").first()?.decode(
                    column: "response", as: String.self)
            }
            #expect(kept == #"{"id":"r1"}"#)

            // A record that kept the whole response (as every record did before) reads as well.
            _ = try await store.write(key: "k7", caller: caller, scope: "receipts", request: ["total": 1]) { _ in
                Receipt(id: "r1", total: 1)
            }
            #expect(try await write("k7") == current)
        }
    }

    @Test("keys are checked")
    func keyValidation() {
        #expect(throws: OrderlyError.self) { try Self.request("", body: "") }
        #expect(throws: OrderlyError.self) { try Self.request(String(repeating: "k", count: 256), body: "") }
        #expect(throws: OrderlyError.self) { try Self.request("has space", body: "") }
    }

    @Test("a request's hash is its bytes' SHA-256 in lower-case hex, as stored records hold it")
    func requestHash() throws {
        let request = try IdempotentRequest(scope: "store:orders.create", key: "k1", request: Array("abc".utf8))
        #expect(request.requestHash == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }
}
