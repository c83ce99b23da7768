import Domain
public import Events
import Foundation
public import Logging
import Metrics
public import ServiceLifecycle

/// Settings of one consumer of a service's events.
public struct EventConsumerConfiguration: Sendable {
    /// The stream read (`eventStream(of:)`).
    public var stream: String
    /// The consumer group: one per consuming service; its replicas share the stream.
    public var group: String
    /// This replica's name within the group.
    public var consumer: String
    /// Whether the group outlives the process: true for a service's group, which its replicas
    /// share and which must see every event from the stream's start. False for a group of one
    /// replica's own (a cache): it is made at the stream's end when the consumer starts and
    /// removed when it stops, so that it does not hold back trimming once the replica is gone.
    public var durableGroup: Bool
    public var batchSize: Int
    /// How long one read waits for new entries.
    public var block: Duration
    /// Entries pending longer than this (their consumer died, or their handler failed) are
    /// taken over and tried again.
    public var reclaimAfter: Duration
    /// Failures of the event itself (see `isTransient(_:)`) after which it goes to the
    /// dead-letter stream. Transient failures do not count: they are retried until they pass.
    public var maximumDeliveries: Int
    /// The wait before trying a failed event again, doubled after each failure up to
    /// `maximumBackoff`.
    public var initialBackoff: Duration
    public var maximumBackoff: Duration
    /// How many handlers run at once. Events of one aggregate always run one after another,
    /// in stream order; events of different aggregates may run side by side.
    public var concurrency: Int
    /// Where handlers run; the global executor when nil. Handlers that mostly write one
    /// database run best on its `Database.preferredExecutor`.
    public var executor: (any TaskExecutor)?
    /// How long to wait before a read after one that brought less than a full batch, so that
    /// each read brings what gathered meanwhile: for a group that applies few of the stream's
    /// events and need not hear of them at once, whose every read would otherwise carry one
    /// event (and cost a wake-up of the process and a round trip to Redis). Zero by default.
    public var pause: Duration

    public init(
        stream: String, group: String, consumer: String, durableGroup: Bool = true, batchSize: Int = 100,
        block: Duration = .seconds(1), reclaimAfter: Duration = .seconds(30), maximumDeliveries: Int = 5,
        initialBackoff: Duration = .milliseconds(100), maximumBackoff: Duration = .seconds(5), concurrency: Int = 32,
        executor: (any TaskExecutor)? = nil, pause: Duration = .zero
    ) {
        self.stream = stream
        self.group = group
        self.consumer = consumer
        self.durableGroup = durableGroup
        self.batchSize = batchSize
        self.block = block
        self.reclaimAfter = reclaimAfter
        self.maximumDeliveries = maximumDeliveries
        self.initialBackoff = initialBackoff
        self.maximumBackoff = max(initialBackoff, maximumBackoff)
        self.concurrency = max(1, concurrency)
        self.executor = executor
        self.pause = pause
    }
}

/// Reads a stream with a consumer group and hands each event to the handler for its type.
///
/// An entry is acknowledged only after its handler succeeded (or when no handler wants its
/// type). A handler that fails is tried again in place, after a backoff, before anything after
/// it in its lane, so an aggregate's events are applied in stream order even across failures.
/// A transient failure (`isTransient(_:)`: the database, Redis or a peer unavailable) is retried
/// until it passes or the process stops, and does not count; a failure of the event itself
/// counts, and after `maximumDeliveries` (earlier deliveries included) the entry, with the last
/// error, moves to the group's dead-letter stream (`deadLetterStream(of:from:)`); so does an entry that is not a valid event. While it
/// retries, the consumer keeps its pending entries claimed, so another replica does not take
/// them over as a dead replica's and apply later events first. Entries a dead replica left
/// pending are taken over once idle for `reclaimAfter`. Delivery is at least once: handlers
/// record the event id (the inbox) to apply each event once. A read blocks one of the
/// `RedisClient`'s threads for up to `block`: give consumers a client of their own, or a pool
/// with threads to spare.
public struct EventConsumer: Service {
    public typealias Handler = @Sendable (DomainEvent) async throws -> Void
    /// Applies several events at once, in stream order, all or none of them.
    public typealias BatchHandler = @Sendable ([DomainEvent]) async throws -> Void

    private let redis: RedisClient
    private let configuration: EventConsumerConfiguration
    private let handlers: [String: Handler]
    private let batchHandler: BatchHandler?
    private let logger: Logger
    /// Events handled, by outcome: `applied`, `skipped` (a type it does not apply),
    /// `dead_lettered`, `failed` (left to be retried).
    private let handled: [String: Counter]

    /// With a `batchHandler`, the events of one read that have a handler go to it together
    /// (one transaction for all, say) and are handled one by one as described above only when it
    /// throws, which finds the event at fault and retries, counts or dead-letters it alone.
    public init(
        redis: RedisClient, configuration: EventConsumerConfiguration, handlers: [String: Handler],
        batchHandler: BatchHandler? = nil, logger: Logger
    ) {
        self.redis = redis
        self.configuration = configuration
        self.handlers = handlers
        self.batchHandler = batchHandler
        var logger = logger
        logger[metadataKey: "events.stream"] = "\(configuration.stream)"
        logger[metadataKey: "events.group"] = "\(configuration.group)"
        self.logger = logger
        handled = Dictionary(
            uniqueKeysWithValues: ["applied", "skipped", "dead_lettered", "failed"].map {
                (
                    $0,
                    Counter(
                        label: "orderly_events_handled_total",
                        dimensions: [("group", configuration.group), ("outcome", $0)])
                )
            })
    }

    /// The stream and group it reads, for the pipeline's metrics.
    public var source: (stream: String, group: String) { (configuration.stream, configuration.group) }

    /// Consumes until graceful shutdown or cancellation.
    ///
    /// Reading overlaps handling: while one batch's handlers run, the next batch is read, and
    /// the batch before is acknowledged in the same round trip. Stale entries are looked for
    /// once a second (every `reclaimAfter` when that is shorter), with a read between two looks
    /// however long a round takes. On graceful shutdown the batch in hand is handled and
    /// acknowledged, and nothing more is read.
    public func run() async throws {
        // Redis may be down or still loading when the process starts: wait for it rather than
        // fail, which would stop every other part of the process with it.
        var attempts = 0
        while true {
            do {
                try await createGroup()
                break
            } catch {
                if Task.isCancelled || Task.isShuttingDownGracefully { return }
                attempts += 1
                if attempts == 1 || attempts.isMultiple(of: 30) {
                    logger.warning(
                        "cannot create the consumer group yet; retrying", metadata: ["error": "\(error)"])
                }
                try? await Task.sleep(for: .seconds(1))
            }
        }
        let scanInterval = min(configuration.reclaimAfter, .seconds(1))
        await withGracefulShutdownHandler {
            var batch: [RedisStreamEntry] = []
            var unacknowledged: [String] = []
            // Where the scan for stale entries goes on; nil between scans.
            var scan: String? = "0-0"
            var lastScan = ContinuousClock.now
            // Whether the round before ended a scan. A scan starts only after a round that read,
            // or a process whose every round outlasts the interval (short of CPU, or on a slow
            // Redis) would scan in every round and never read.
            var scanEnded = false
            while !Task.isCancelled {
                let stopping = Task.isShuttingDownGracefully
                if scan == nil, !scanEnded, lastScan.duration(to: .now) >= scanInterval {
                    (scan, lastScan) = ("0-0", .now)
                }
                let (acknowledging, scanning) = (unacknowledged, scan)
                var handled: [String] = []
                do {
                    // The read after a short one waits out the pause first, beside the handling.
                    let pausing = batch.count < configuration.batchSize ? configuration.pause : .zero
                    async let next =
                        stopping
                        ? ([], nil) : fetch(acknowledging: acknowledging, scanningFrom: scanning, after: pausing)
                    handled = try await handle(batch)
                    (batch, scan) = try await next
                    scanEnded = scanning != nil && scan == nil
                    unacknowledged = stopping ? acknowledging + handled : handled
                } catch {
                    // Entries of a batch not handled stay pending, and are taken over once stale.
                    unacknowledged += handled
                    batch = []
                    if case RedisError.server(let message) = error, message.hasPrefix("NOGROUP") {
                        // Redis came back without the group: make it again (a durable group from
                        // the stream's start; what it redelivers, the inbox drops).
                        logger.warning("consumer group missing from Redis; creating it again")
                        if (try? await createGroup()) != nil { continue }
                    }
                    logger.warning("event consumer cannot read; retrying", metadata: ["error": "\(error)"])
                    try? await Task.sleep(for: .seconds(1))
                    continue
                }
                if stopping {
                    do {
                        if configuration.durableGroup {
                            try await redis.xack(configuration.stream, group: configuration.group, ids: unacknowledged)
                        } else {
                            try await redis.send(
                                "XGROUP", "DESTROY", RedisArgument(configuration.stream),
                                RedisArgument(configuration.group))
                        }
                    } catch {
                        logger.warning(
                            "event consumer stopped without acknowledging its last entries",
                            metadata: ["error": "\(error)"])
                    }
                    return
                }
            }
        } onGracefulShutdown: {
        }
    }

    private func createGroup() async throws {
        try await redis.xgroupCreate(
            configuration.stream, group: configuration.group, startingAt: configuration.durableGroup ? "0" : "$")
    }

    /// One round trip, after `pause`: acknowledges `ids`, then takes over stale entries from `scan`, or reads
    /// new ones when no scan goes on. Returns the entries and where the scan goes on.
    private func fetch(
        acknowledging ids: [String], scanningFrom scan: String?, after pause: Duration = .zero
    ) async throws -> ([RedisStreamEntry], String?) {
        if pause > .zero { try? await Task.sleep(for: pause) }
        var commands: [[RedisArgument]] = []
        if !ids.isEmpty {
            commands.append(RedisClient.xackArguments(configuration.stream, group: configuration.group, ids: ids))
        }
        if let scan {
            commands.append(
                RedisClient.xautoclaimArguments(
                    configuration.stream, group: configuration.group, consumer: configuration.consumer,
                    minimumIdle: configuration.reclaimAfter, start: scan, count: configuration.batchSize))
        } else {
            commands.append(
                RedisClient.xreadgroupArguments(
                    configuration.stream, group: configuration.group, consumer: configuration.consumer,
                    count: configuration.batchSize, block: configuration.block))
        }
        let replies = try await redis.pipeline(commands)
        for reply in replies {
            if case .error(let message) = reply { throw RedisError.server(message) }
        }
        guard scan != nil else { return (try RedisClient.xreadgroupEntries(replies[replies.count - 1]), nil) }
        let claimed = try RedisClient.xautoclaimEntries(replies[replies.count - 1])
        return (claimed.entries, claimed.next == "0-0" ? nil : claimed.next)
    }

    /// One round: take over stale entries, then read new ones, handle and acknowledge them;
    /// returns how many were handled.
    @discardableResult
    public func poll() async throws -> Int {
        var handled = 0
        var start = "0-0"
        repeat {
            let claimed = try await redis.xautoclaim(
                configuration.stream, group: configuration.group, consumer: configuration.consumer,
                minimumIdle: configuration.reclaimAfter, start: start, count: configuration.batchSize)
            try await redis.xack(configuration.stream, group: configuration.group, ids: handle(claimed.entries))
            handled += claimed.entries.count
            start = claimed.next
        } while start != "0-0"
        let fresh = try await redis.xreadgroup(
            configuration.stream, group: configuration.group, consumer: configuration.consumer,
            count: configuration.batchSize, block: configuration.block)
        try await redis.xack(configuration.stream, group: configuration.group, ids: handle(fresh))
        return handled + fresh.count
    }

    /// Handles a batch; returns the ids of the entries to acknowledge: those whose handlers
    /// succeeded and those no handler wants. Should the process die before they are
    /// acknowledged, they are delivered again and the inbox drops them.
    ///
    /// The batch is split into lanes by aggregate: a lane runs its events in stream order, each
    /// only once the one before is done, and lanes run side by side (up to `concurrency`), so an
    /// aggregate's events are never reordered while a slow handler does not hold up every
    /// other aggregate. A lane left on graceful shutdown leaves its event and those after it
    /// pending.
    private func handle(_ entries: [RedisStreamEntry]) async throws -> [String] {
        guard !entries.isEmpty else { return [] }
        var lanes = Array(
            repeating: [(RedisStreamEntry, DomainEvent, Handler)](),
            count: min(configuration.concurrency, entries.count))
        var done: [String] = []
        var wanted: [(id: String, event: DomainEvent)] = []
        for entry in entries {
            // An event of a type this group does not apply is acknowledged unread, as most of a
            // busy stream is for a group that follows a few of its types: neither its fields nor
            // its payload are decoded. The groups that apply it judge whether it is well formed.
            if let type = entry.fields["type"], !type.isEmpty,
                handlers[String(decoding: type, as: UTF8.self)] == nil
            {
                done.append(entry.id)
                handled["skipped"]?.increment()
                continue
            }
            switch EventFields.decode(entry.fields) {
            case .success(let event):
                // Decoded, its type is one passed over above or one this group applies.
                guard let handler = handlers[event.type] else { continue }
                let lane = Int(UInt(bitPattern: event.aggregateID.hashValue) % UInt(lanes.count))
                lanes[lane].append((entry, event, handler))
                wanted.append((entry.id, event))
            case .failure(let error):
                logger.error(
                    "malformed event moved to the dead-letter stream", metadata: ["event.entry": "\(entry.id)"])
                try await deadLetter(entry, error: error.description)
                handled["dead_lettered"]?.increment()
            }
        }
        if let batchHandler, wanted.count > 1 {
            do {
                try await withTaskExecutorPreference(configuration.executor) {
                    // One step of each event's trace.
                    try await TraceContext.spans(
                        "\(configuration.group) batch", continuing: wanted.compactMap(\.event.trace), kind: .consumer
                    ) { try await batchHandler(wanted.map(\.event)) }
                }
                handled["applied"]?.increment(by: wanted.count)
                return done + wanted.map(\.id)
            } catch {
                logger.debug(
                    "a batch of events failed; handling them one by one",
                    metadata: ["error": "\(error)", "events.count": "\(wanted.count)"])
            }
        }
        let keeper = PendingKeeper(consumer: self)
        return try await withThrowingTaskGroup(of: [String].self) { group in
            for lane in lanes where !lane.isEmpty {
                group.addTask(executorPreference: configuration.executor) {
                    var succeeded: [String] = []
                    for (entry, event, handler) in lane {
                        switch try await handle(entry, event, with: handler, keeper: keeper) {
                        case .succeeded: succeeded.append(entry.id)
                        case .deadLettered: continue
                        case .leftPending: return succeeded
                        }
                    }
                    return succeeded
                }
            }
            return try await group.reduce(into: done) { $0 += $1 }
        }
    }

    private enum Outcome { case succeeded, deadLettered, leftPending }

    /// Runs the event's handler until it succeeds, the event's own failures reach
    /// `maximumDeliveries` (then it is dead-lettered), or the process stops.
    private func handle(
        _ entry: RedisStreamEntry, _ event: DomainEvent, with handler: Handler, keeper: PendingKeeper
    ) async throws -> Outcome {
        var logger = logger
        logger[metadataKey: "event.id"] = "\(event.id)"
        logger[metadataKey: "event.type"] = "\(event.type)"
        var failures = 0
        var transientFailures = 0
        var earlierDeliveries: Int?
        var backoff = configuration.initialBackoff
        while true {
            do {
                try await TraceContext.span(
                    "\(configuration.group) \(event.type)", continuing: event.trace, kind: .consumer,
                    attributes: {
                        $0["messaging.system"] = "redis"
                        $0["messaging.destination.name"] = configuration.stream
                        $0["messaging.consumer.group.name"] = configuration.group
                    }
                ) {
                    try await handler(event)
                    logger.debug("event applied")
                }
                handled["applied"]?.increment()
                if transientFailures > 0 {
                    logger.info(
                        "event handled after transient failures", metadata: ["events.retries": "\(transientFailures)"])
                }
                return .succeeded
            } catch {
                if Task.isCancelled || Task.isShuttingDownGracefully { return .leftPending }
                handled["failed"]?.increment()
                if isTransient(error) {
                    transientFailures += 1
                    if transientFailures == 1 || transientFailures.isMultiple(of: 20) {
                        logger.warning(
                            "event handler failed for a reason of the moment; retrying without counting it",
                            metadata: ["error": "\(error)", "events.retries": "\(transientFailures)"])
                    }
                } else {
                    failures += 1
                    if earlierDeliveries == nil { earlierDeliveries = try await deliveryCount(of: entry.id) - 1 }
                    let deliveries = (earlierDeliveries ?? 0) + failures
                    if deliveries >= configuration.maximumDeliveries {
                        logger.error(
                            "event failed \(deliveries) times; moved to the dead-letter stream",
                            metadata: ["error": "\(error)"])
                        try await deadLetter(entry, error: "\(error)")
                        handled["dead_lettered"]?.increment()
                        return .deadLettered
                    }
                    logger.warning(
                        "event handler failed; will retry",
                        metadata: ["error": "\(error)", "events.failures": "\(deliveries)"])
                }
            }
            guard await pause(backoff) else { return .leftPending }
            backoff = min(backoff * 2, configuration.maximumBackoff)
            await keeper.refresh()
        }
    }

    /// Waits `duration`, in short steps so that a graceful shutdown ends the wait; false when it
    /// did (or the task was cancelled).
    private func pause(_ duration: Duration) async -> Bool {
        let end = ContinuousClock.now + duration
        while ContinuousClock.now < end {
            if Task.isCancelled || Task.isShuttingDownGracefully { return false }
            try? await Task.sleep(for: min(.milliseconds(100), ContinuousClock.now.duration(to: end)))
        }
        return !(Task.isCancelled || Task.isShuttingDownGracefully)
    }

    /// Keeps this consumer's pending entries claimed while it retries: their idle time starts
    /// again (`XCLAIM … JUSTID`, which does not count a delivery), at most every half
    /// `reclaimAfter`, so no other replica takes them over.
    private actor PendingKeeper {
        let consumer: EventConsumer
        var last = ContinuousClock.now

        init(consumer: EventConsumer) { self.consumer = consumer }

        func refresh() async {
            guard last.duration(to: .now) >= consumer.configuration.reclaimAfter / 2 else { return }
            last = .now
            do {
                try await consumer.claimOwnPending()
            } catch {
                consumer.logger.warning("cannot keep pending entries claimed", metadata: ["error": "\(error)"])
            }
        }
    }

    /// Resets the idle time of every entry pending for this consumer.
    private func claimOwnPending() async throws {
        let (stream, group, consumer) = (
            RedisArgument(configuration.stream), RedisArgument(configuration.group),
            RedisArgument(configuration.consumer)
        )
        let pending = try await redis.send("XPENDING", stream, group, "-", "+", 10_000, consumer)
        let ids = (pending.elements ?? []).compactMap { $0.elements?.first?.text }
        guard !ids.isEmpty else { return }
        try await redis.send(["XCLAIM", stream, group, consumer, 0] + ids.map { RedisArgument($0) } + ["JUSTID"])
    }

    private func deliveryCount(of id: String) async throws -> Int {
        let reply = try await redis.send(
            "XPENDING", RedisArgument(configuration.stream), RedisArgument(configuration.group), RedisArgument(id),
            RedisArgument(id), 1)
        guard let row = reply.elements?.first?.elements, row.count == 4, let count = row[3].integer else { return 1 }
        return Int(count)
    }

    /// Copies the entry and the reason to the dead-letter stream, then acknowledges it, in one
    /// round trip (`MULTI`), so it is never both lost and acknowledged.
    private func deadLetter(_ entry: RedisStreamEntry, error: String) async throws {
        var add: [RedisArgument] = [
            "XADD", RedisArgument(deadLetterStream(of: configuration.group, from: configuration.stream)), "*",
        ]
        for (name, value) in entry.fields.sorted(by: { $0.key < $1.key }) {
            add += [RedisArgument(name), RedisArgument(value)]
        }
        add += ["error", RedisArgument(error), "source_stream", RedisArgument(configuration.stream)]
        add += ["source_id", RedisArgument(entry.id)]
        let replies = try await redis.pipeline([
            ["MULTI"], add,
            [
                "XACK", RedisArgument(configuration.stream), RedisArgument(configuration.group),
                RedisArgument(entry.id),
            ], ["EXEC"],
        ])
        guard case .array = replies.last else {
            throw RedisError.unexpectedReply("dead-letter transaction: \(replies)")
        }
    }
}
