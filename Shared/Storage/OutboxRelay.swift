import Domain
public import Events
public import Foundation
import JSON
public import Logging
import Metrics
import SQLKit
public import ServiceLifecycle

/// Names and encodings of the outbox table.
enum OutboxSchema {
    /// The sequence outbox rows take their numbers from.
    static let sequence = "orderly.outbox"
    /// The relay's row: locked while a batch is published, so replicas take turns; its value is
    /// the number of the last row published.
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
///
/// Redis may lose what it acknowledged: with `appendfsync everysec` a crash drops up to its last
/// second, and a Redis that comes back empty has lost everything. So the relay keeps a mark, the
/// number of the last row published, both in the database and beside the stream, and every
/// publish (and every poll with nothing to publish) compares them in one script: when Redis's
/// mark is behind, the rows after it are marked pending and published again, before anything
/// newer (sent rows are kept for `sentRetention`). Every ten polls the relay trims the stream of
/// what every consumer group has acknowledged.
public struct OutboxRelay: Service {
    private let database: Database
    private let publisher: any EventPublishing
    private let configuration: OutboxRelayConfiguration
    private let logger: Logger
    private let published = Counter(label: "orderly_outbox_published_total")
    private let failures = Counter(label: "orderly_outbox_publish_failures_total")

    public init(
        database: Database, publisher: any EventPublishing, configuration: OutboxRelayConfiguration = .init(),
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
                            try await trim()
                        }
                    } catch {
                        if Task.isCancelled { break }
                        failures.increment()
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

    /// Publishes every pending row, batch by batch; returns how many. Finding that Redis lost
    /// rows marked sent, it marks them pending and publishes them first.
    @discardableResult
    public func drain() async throws -> Int {
        var total = 0
        while true {
            switch try await publishBatch() {
            case .published(let count):
                total += count
                published.increment(by: count)
                if count < configuration.batchSize { return total }
            case .rewound:
                continue
            }
        }
    }

    private enum BatchOutcome {
        /// This many rows were published and marked sent.
        case published(Int)
        /// Redis was behind: the rows it lost are pending again.
        case rewound
    }

    /// Publishes the next batch of pending rows under the relay's mark: the number of the last
    /// row published, kept in the relay's row of `orderly_sequences` and beside the stream in
    /// Redis. With nothing pending it only compares the marks.
    private func publishBatch() async throws -> BatchOutcome {
        let select: SQLQueryString =
            "SELECT seq, event_id, type, store_id, aggregate_id, occurred_at, payload, trace FROM orderly_outbox WHERE sent_at IS NULL ORDER BY seq LIMIT \(bind: configuration.batchSize)"
        let mark: SQLQueryString = "SELECT value FROM orderly_sequences WHERE name = \(bind: OutboxSchema.relayLock)"
        switch database.kind {
        case .postgres:
            // The lock on the relay's row makes replicas' relays take turns, so batches reach
            // the stream in order.
            return try await database.transaction { transaction in
                let expected = try await Self.value(transaction.sql.raw(mark + " FOR UPDATE").first())
                let rows = try await transaction.sql.raw(select).all()
                let outcome = try await publish(rows, expecting: expected)
                return try await record(outcome, rows: rows, expected: expected, in: transaction)
            }
        case .sqlite:
            // One process owns an SQLite file: read, publish, then mark, without holding the
            // only writer while Redis answers.
            let (expected, rows) = try await database.read { sql in
                (try await Self.value(sql.raw(mark).first()), try await sql.raw(select).all())
            }
            let outcome = try await publish(rows, expecting: expected)
            return try await database.transaction { try await record(outcome, rows: rows, expected: expected, in: $0) }
        }
    }

    private static func value(_ row: (any SQLRow)?) throws -> Int64 {
        guard let row else { throw StorageError.unexpected("the outbox relay's row is missing") }
        return try row.decode(column: "value", as: Int64.self)
    }

    private func publish(_ rows: [any SQLRow], expecting expected: Int64) async throws -> MarkedPublish {
        let last = try rows.last?.decode(column: "seq", as: Int64.self) ?? expected
        let events = try rows.map(OutboxSchema.event(from:))
        return try await TraceContext.spans(
            "outbox.publish", continuing: events.compactMap(\.trace), kind: .producer
        ) { try await publisher.publish(events, through: last, expecting: expected) }
    }

    /// Marks the published rows sent; or, when Redis was behind, marks pending again the rows
    /// it lost.
    private func record(
        _ outcome: MarkedPublish, rows: [any SQLRow], expected: Int64, in transaction: Transaction
    ) async throws -> BatchOutcome {
        switch outcome {
        case .published(let previous):
            if previous > expected {
                logger.warning(
                    "Redis has more of this service's events than its database says were published: two deployments share a Redis and a service name, or the database was restored from an older backup",
                    metadata: ["outbox.redis_mark": "\(previous)", "outbox.database_mark": "\(expected)"])
            }
            guard let first = rows.first, let last = rows.last else { return .published(0) }
            let range = try first.decode(column: "seq", as: Int64.self)...last.decode(column: "seq", as: Int64.self)
            try await transaction.sql.raw(
                """
                UPDATE orderly_outbox SET sent_at = \(bind: Date.nowMilliseconds)
                WHERE seq >= \(bind: range.lowerBound) AND seq <= \(bind: range.upperBound) AND sent_at IS NULL
                """
            ).run()
            try await setMark(range.upperBound, in: transaction)
            return .published(rows.count)
        case .behind(let mark):
            let lost = try await transaction.sql.raw(
                "UPDATE orderly_outbox SET sent_at = NULL WHERE seq > \(bind: mark) AND sent_at IS NOT NULL RETURNING seq"
            ).all().count
            try await setMark(mark, in: transaction)
            logger.warning(
                "Redis lost events it had acknowledged; publishing them again",
                metadata: [
                    "outbox.redis_mark": "\(mark)", "outbox.database_mark": "\(expected)", "events.count": "\(lost)",
                ])
            return .rewound
        }
    }

    private func setMark(_ value: Int64, in transaction: Transaction) async throws {
        try await transaction.sql.raw(
            "UPDATE orderly_sequences SET value = \(bind: value) WHERE name = \(bind: OutboxSchema.relayLock)"
        ).run()
    }

    /// Trims the stream of what every group has acknowledged, and says which group holds back
    /// events older than `sentRetention`: a service that is down, or the group of a replica that
    /// is gone, which stays until an operator removes it (`XGROUP DESTROY`).
    private func trim() async throws {
        let trim = try await publisher.trimAcknowledged()
        guard let oldest = trim.oldestKept, let group = trim.neededBy else { return }
        let age = Date.nowMilliseconds - Int64(clamping: oldest.milliseconds)
        if age > Int64(configuration.sentRetention.wholeMilliseconds) {
            logger.warning(
                "a consumer group has not acknowledged old events; the stream keeps everything after them",
                metadata: ["events.group": "\(group)", "events.oldest_age_ms": "\(age)"])
        }
    }

    private func pruneSent() async throws {
        try await database.deleteRows(of: "orderly_outbox", where: "sent_at", olderThan: configuration.sentRetention)
    }

    /// How many rows wait to be published, and when the oldest of them was written.
    public func backlog() async throws -> (count: Int, oldest: Date?) {
        try await database.read { sql in
            let row = try await sql.raw(
                "SELECT COUNT(*) AS pending, MIN(created_at) AS oldest FROM orderly_outbox WHERE sent_at IS NULL"
            ).first()
            let oldest =
                try row?.decodeNil(column: "oldest") == false ? row?.decode(column: "oldest", as: Int64.self) : nil
            return (
                try row?.decode(column: "pending", as: Int.self) ?? 0,
                oldest.map { Date(timeIntervalSince1970: Double($0) / 1000) }
            )
        }
    }

    /// How many rows wait to be published.
    public func pendingCount() async throws -> Int { try await backlog().count }
}
