import Domain
import Foundation
import JSON
public import Logging
public import Redis
import SQLKit
public import ServiceLifecycle

/// Names and encodings of the outbox table.
enum OutboxSchema {
    /// The sequence outbox rows take their numbers from.
    static let sequence = "orderly.outbox"
    /// The row a relay locks while it publishes, so replicas take turns.
    static let relayLock = "orderly.outbox.relay"

    static func event(from row: any SQLRow) throws -> DomainEvent {
        let id = try row.decode(column: "event_id", as: String.self)
        guard let uuid = UUID(text: id) else {
            throw StorageError.unexpected("outbox event id \(id) is not a UUID")
        }
        var storeID: StoreID?
        if let store = try row.decodeNil(column: "store_id") ? nil : row.decode(column: "store_id", as: String.self) {
            guard let parsed = StoreID(store) else {
                throw StorageError.unexpected("outbox store id \(store) is not a UUID")
            }
            storeID = parsed
        }
        let payload = try row.decode(column: "payload", as: String.self)
        return DomainEvent(
            id: uuid, type: try row.decode(column: "type", as: String.self), storeID: storeID,
            aggregateID: try row.decode(column: "aggregate_id", as: String.self),
            occurredAt: Date(millisecondsSince1970: try row.decode(column: "occurred_at", as: Int64.self)),
            payload: EventPayload(encodedJSON: payload),
            trace: try row.decode(column: "trace", as: String?.self))
    }
}

/// Settings of an outbox relay.
public struct OutboxRelayConfiguration: Sendable {
    /// Most events per round trip to Redis.
    public var batchSize: Int
    /// How often the relay looks for rows without being woken (rows committed by another
    /// replica, or by a process that died before its relay ran).
    public var pollInterval: Duration
    /// The first and the longest wait after a failed publish.
    public var initialBackoff: Duration
    public var maximumBackoff: Duration
    /// How long published rows are kept (for inspection) before they are deleted.
    public var sentRetention: Duration

    public init(
        batchSize: Int = 500, pollInterval: Duration = .seconds(1), initialBackoff: Duration = .milliseconds(50),
        maximumBackoff: Duration = .seconds(5), sentRetention: Duration = .seconds(600)
    ) {
        self.batchSize = max(1, batchSize)
        self.pollInterval = pollInterval
        self.initialBackoff = initialBackoff
        self.maximumBackoff = maximumBackoff
        self.sentRetention = sentRetention
    }
}

/// Publishes outbox rows to the service's stream, in the order their transactions committed,
/// and marks them sent.
///
/// A commit that wrote events wakes the relay at once; it also looks every `pollInterval`.
/// While Redis is down it retries with exponential backoff, and nothing is lost or reordered:
/// rows stay pending until a publish succeeds. After a failure in mid-batch, or a crash between
/// publishing and marking, rows are published again; consumers drop the repeats by event id
/// (the inbox). On PostgreSQL, replicas take turns through a row lock held while a batch is
/// published. On graceful shutdown the relay publishes what is pending once more and stops.
public struct OutboxRelay: Service {
    private let database: Database
    private let publisher: EventPublisher
    private let configuration: OutboxRelayConfiguration
    private let logger: Logger

    public init(
        database: Database, publisher: EventPublisher, configuration: OutboxRelayConfiguration = .init(),
        logger: Logger
    ) {
        self.database = database
        self.publisher = publisher
        self.configuration = configuration
        self.logger = logger
    }

    public func run() async throws {
        let (wakeups, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let listener = database.addCommitListener(wake)
        defer { database.removeCommitListener(listener) }
        wake.yield()
        await withDiscardingTaskGroup { group in
            group.addTask {
                while !Task.isCancelled {
                    try? await Task.sleep(for: configuration.pollInterval)
                    wake.yield()
                }
            }
            await withGracefulShutdownHandler {
                var backoff = configuration.initialBackoff
                var lastPrune = ContinuousClock.now
                for await _ in wakeups {
                    do {
                        try await drain()
                        backoff = configuration.initialBackoff
                        if lastPrune.duration(to: .now) > configuration.pollInterval * 10 {
                            lastPrune = .now
                            try await pruneSent()
                        }
                    } catch {
                        if Task.isCancelled { break }
                        logger.warning(
                            "outbox relay cannot publish; retrying",
                            metadata: ["error": "\(error)", "retry_in": "\(backoff)"])
                        try? await Task.sleep(for: backoff)
                        backoff = min(backoff * 2, configuration.maximumBackoff)
                        wake.yield()
                    }
                }
            } onGracefulShutdown: {
                wake.finish()
            }
            group.cancelAll()
        }
        // After a graceful shutdown (not a cancellation), publish what the last commits wrote.
        guard !Task.isCancelled else { return }
        do {
            try await drain()
        } catch {
            logger.warning("outbox relay stopped with events pending", metadata: ["error": "\(error)"])
        }
    }

    /// Publishes every pending row, batch by batch; returns how many.
    @discardableResult
    public func drain() async throws -> Int {
        var total = 0
        while true {
            let count = try await publishBatch()
            total += count
            if count < configuration.batchSize { return total }
        }
    }

    private func publishBatch() async throws -> Int {
        let select: SQLQueryString =
            "SELECT seq, event_id, type, store_id, aggregate_id, occurred_at, payload, trace FROM orderly_outbox WHERE sent_at IS NULL ORDER BY seq LIMIT \(bind: configuration.batchSize)"
        switch database.kind {
        case .postgres:
            // The lock row makes replicas' relays take turns, so batches reach the stream in order.
            return try await database.transaction { transaction in
                try await transaction.sql.raw(
                    "SELECT value FROM orderly_sequences WHERE name = \(bind: OutboxSchema.relayLock) FOR UPDATE"
                ).run()
                let rows = try await transaction.sql.raw(select).all()
                guard let range = try await publish(rows) else { return 0 }
                try await markSent(range, in: transaction)
                return rows.count
            }
        case .sqlite:
            // One process owns an SQLite file: read, publish, then mark, without holding the
            // only writer while Redis answers.
            let rows = try await database.read { try await $0.raw(select).all() }
            guard let range = try await publish(rows) else { return 0 }
            try await database.transaction { try await markSent(range, in: $0) }
            return rows.count
        }
    }

    /// Publishes the rows' events in order; returns the range of their numbers.
    private func publish(_ rows: [any SQLRow]) async throws -> ClosedRange<Int64>? {
        guard let first = rows.first, let last = rows.last else { return nil }
        try await publisher.publish(try rows.map(OutboxSchema.event(from:)))
        return try first.decode(column: "seq", as: Int64.self)...last.decode(column: "seq", as: Int64.self)
    }

    private func markSent(_ range: ClosedRange<Int64>, in transaction: Transaction) async throws {
        try await transaction.sql.raw(
            """
            UPDATE orderly_outbox SET sent_at = \(bind: Date.nowMilliseconds)
            WHERE seq >= \(bind: range.lowerBound) AND seq <= \(bind: range.upperBound) AND sent_at IS NULL
            """
        ).run()
    }

    private func pruneSent() async throws {
        let cutoff = Date.nowMilliseconds - Int64(configuration.sentRetention.wholeMilliseconds)
        try await database.transaction { transaction in
            try await transaction.sql.raw("DELETE FROM orderly_outbox WHERE sent_at < \(bind: cutoff)").run()
        }
    }

    /// How many rows wait to be published.
    public func pendingCount() async throws -> Int {
        try await database.read { sql in
            try await sql.raw("SELECT COUNT(*) AS pending FROM orderly_outbox WHERE sent_at IS NULL").first()?
                .decode(column: "pending", as: Int.self) ?? 0
        }
    }
}
