import Domain
import Events
import Foundation
import JSON
import Logging
import Redis
import ServiceLifecycle
import Synchronization
import TestSupport
import Testing

@Suite("Event streams: publishing and consuming", .serialized, .timeLimit(.minutes(1)))
struct EventStreamTests {
    /// Records what handlers saw, from several tasks.
    final class Log: Sendable {
        private let entries = Mutex<[(String, DomainEvent)]>([])
        func add(_ consumer: String, _ event: DomainEvent) { entries.withLock { $0.append((consumer, event)) } }
        var all: [(String, DomainEvent)] { entries.withLock { $0 } }
    }

    /// A task executor on a dispatch queue of its own, which tells whether code runs on it.
    final class QueueExecutor: TaskExecutor {
        private let queue = DispatchQueue(label: "orderly.tests.executor")
        private let key = DispatchSpecificKey<Bool>()
        init() { queue.setSpecific(key: key, value: true) }
        var isCurrent: Bool { DispatchQueue.getSpecific(key: key) == true }

        func enqueue(_ job: consuming ExecutorJob) {
            let job = UnownedJob(job)
            queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
        }
    }

    private func event(_ index: Int, type: String = "order.created") -> DomainEvent {
        DomainEvent(
            type: type, storeID: StoreID(), aggregateID: "order-\(index)",
            occurredAt: Date(timeIntervalSince1970: 1_800_000_000.5 + Double(index)),
            payload: EventPayload(encodedJSON: "{\"n\":\(index)}"),
            trace: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01")
    }

    private func consumer(
        _ redis: RedisClient, name: String, reclaimAfter: Duration = .seconds(30), maximumDeliveries: Int = 5,
        handler: @escaping EventConsumer.Handler
    ) -> EventConsumer {
        EventConsumer(
            redis: redis,
            configuration: EventConsumerConfiguration(
                stream: eventStream(of: "orders"), group: "notifications", consumer: name, batchSize: 8,
                block: .milliseconds(10), reclaimAfter: reclaimAfter, maximumDeliveries: maximumDeliveries,
                initialBackoff: .milliseconds(5), maximumBackoff: .milliseconds(20)),
            handlers: ["order.created": handler], logger: Logger(label: "test.events"))
    }

    /// Runs the consumer as a service until `done` holds or `timeout` passes, then stops it
    /// gracefully; whether `done` held.
    private func run(_ reader: EventConsumer, within timeout: Duration, until done: () -> Bool) async throws -> Bool {
        let group = ServiceGroup(services: [reader], gracefulShutdownSignals: [], logger: Logger(label: "test"))
        return try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            let held = await waitUntil(within: timeout, done)
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
            return held
        }
    }

    @Test("an event arrives whole, and two consumers of one group share the stream without overlap")
    func sharing() async throws {
        try await withRedis { redis, server in
            let log = Log()
            let a = consumer(redis, name: "a") { log.add("a", $0) }
            let b = consumer(redis, name: "b") { log.add("b", $0) }
            try await redis.xgroupCreate(eventStream(of: "orders"), group: "notifications")
            let published = (0..<20).map { event($0) }
            let publisher = EventPublisher(redis: redis, service: "orders")
            for item in published { try await publisher.publish(item) }
            while log.all.count < 20 {
                try await a.poll()
                try await b.poll()
            }
            #expect(log.all.count == 20)
            #expect(Set(log.all.map(\.1)) == Set(published))
            #expect(Set(log.all.map(\.0)) == ["a", "b"])
            #expect(try await redis.xpendingCount(eventStream(of: "orders"), group: "notifications") == 0)
        }
    }

    @Test("handlers run side by side, but each aggregate's events in stream order")
    func aggregateOrder() async throws {
        try await withRedis { redis, _ in
            let log = Log()
            let reader = EventConsumer(
                redis: redis,
                configuration: EventConsumerConfiguration(
                    stream: eventStream(of: "orders"), group: "notifications", consumer: "a", batchSize: 100,
                    block: .milliseconds(10), concurrency: 8),
                handlers: [
                    "order.updated": { event in
                        // Uneven handler times: lanes finish in any order, events within one must not.
                        try await Task.sleep(for: .microseconds(Int.random(in: 0...2000)))
                        log.add("a", event)
                    }
                ], logger: Logger(label: "test.events"))
            try await redis.xgroupCreate(eventStream(of: "orders"), group: "notifications")
            let publisher = EventPublisher(redis: redis, service: "orders")
            let published = (0..<100).map { index in
                DomainEvent(
                    type: "order.updated", storeID: nil, aggregateID: "order-\(index % 5)",
                    payload: EventPayload(encodedJSON: "{\"n\":\(index)}"))
            }
            try await publisher.publish(published)
            while log.all.count < 100 { try await reader.poll() }
            for aggregate in 0..<5 {
                let seen = log.all.map(\.1).filter { $0.aggregateID == "order-\(aggregate)" }
                #expect(
                    seen.map(\.payload) == published.filter { $0.aggregateID == "order-\(aggregate)" }.map(\.payload))
            }
            #expect(try await redis.xpendingCount(eventStream(of: "orders"), group: "notifications") == 0)
        }
    }

    @Test("a running consumer handles every event on its executor, takes over stale ones, and acknowledges all")
    func running() async throws {
        try await withRedis { redis, _ in
            try await redis.xgroupCreate(eventStream(of: "orders"), group: "notifications")
            let published = (0..<200).map { event($0) }
            try await EventPublisher(redis: redis, service: "orders").publish(published)
            // A consumer that died holding the first three.
            let taken = try await redis.xreadgroup(
                eventStream(of: "orders"), group: "notifications", consumer: "dead", count: 3)
            #expect(taken.count == 3)
            let log = Log()
            let executor = QueueExecutor()
            let elsewhere = Mutex(0)
            let reader = EventConsumer(
                redis: redis,
                configuration: EventConsumerConfiguration(
                    // Batches of 50: a few rounds, as each round can take half a second while
                    // the other suites keep both cores busy.
                    stream: eventStream(of: "orders"), group: "notifications", consumer: "alive", batchSize: 50,
                    block: .milliseconds(10), reclaimAfter: .milliseconds(200), executor: executor),
                handlers: [
                    "order.created": { event in
                        if !executor.isCurrent { elsewhere.withLock { $0 += 1 } }
                        log.add("alive", event)
                    }
                ], logger: Logger(label: "test.events"))
            #expect(
                try await run(reader, within: .seconds(30)) { Set(log.all.map(\.1.id)).count == published.count })
            #expect(Set(log.all.map(\.1)) == Set(published))
            #expect(elsewhere.withLock { $0 } == 0)
            #expect(try await redis.xpendingCount(eventStream(of: "orders"), group: "notifications") == 0)
        }
    }

    @Test("a consumer whose every round outlasts the scan for stale entries still reads new ones")
    func slowRounds() async throws {
        try await withRedis { redis, _ in
            try await redis.xgroupCreate(eventStream(of: "orders"), group: "notifications")
            let published = (0..<40).map { event($0) }
            try await EventPublisher(redis: redis, service: "orders").publish(published)
            let log = Log()
            // With nothing to wait between scans, every round outlasts the interval, as each does
            // on a process short of CPU when the interval is 200 ms; a scan after every round
            // would leave no round to read in.
            let reader = consumer(redis, name: "alive", reclaimAfter: .zero) { log.add("alive", $0) }
            #expect(
                try await run(reader, within: .seconds(20)) { Set(log.all.map(\.1.id)).count == published.count })
            #expect(Set(log.all.map(\.1)) == Set(published))
        }
    }

    @Test("a handler that keeps failing is tried 5 times, then the entry moves to the dead-letter stream")
    func deadLetter() async throws {
        try await withRedis { redis, server in
            let attempts = Mutex(0)
            struct Broken: Error, CustomStringConvertible { var description: String { "database is on fire" } }
            let failing = consumer(redis, name: "a", reclaimAfter: .milliseconds(20)) { _ in
                attempts.withLock { $0 += 1 }
                throw Broken()
            }
            try await redis.xgroupCreate(eventStream(of: "orders"), group: "notifications")
            let original = event(1)
            let streamID = try await EventPublisher(redis: redis, service: "orders").publish(original)
            // Each poll takes the entry over again once it has been idle for 20 ms.
            let deadLettered = try await waitUntil {
                try await failing.poll()
                return try await redis.send("XLEN", "orderly:dlq:notifications").integer == 1
            }
            #expect(deadLettered)
            #expect(attempts.withLock { $0 } == 5)
            #expect(try await redis.xpendingCount(eventStream(of: "orders"), group: "notifications") == 0)
            let dead = try await redis.send("XRANGE", "orderly:dlq:notifications", "-", "+").elements ?? []
            #expect(dead.count == 1)
            let fields = dead.first?.elements?.last?.elements?.compactMap(\.text) ?? []
            #expect(fields.contains("database is on fire"))
            #expect(fields.contains(streamID))
            #expect(fields.contains(original.id.uuidString.lowercased()))
        }
    }

    @Test("a batch handler gets a read's events together; when it fails they are handled one by one")
    func batches() async throws {
        try await withRedis { redis, _ in
            let batches = Mutex<[[Int]]>([])
            let single = Log()
            let executor = QueueExecutor()
            let elsewhere = Mutex(0)
            struct Broken: Error {}
            @Sendable func number(_ event: DomainEvent) -> Int {
                Int(event.aggregateID.dropFirst("order-".count)) ?? -1
            }
            let reader = EventConsumer(
                redis: redis,
                configuration: EventConsumerConfiguration(
                    stream: eventStream(of: "orders"), group: "notifications", consumer: "a", batchSize: 10,
                    block: .milliseconds(10), reclaimAfter: .milliseconds(20), maximumDeliveries: 2,
                    initialBackoff: .milliseconds(5), executor: executor),
                handlers: [
                    "order.created": { event in
                        if number(event) == 13 { throw Broken() }
                        single.add("a", event)
                    }
                ],
                batchHandler: { events in
                    if !executor.isCurrent { elsewhere.withLock { $0 += 1 } }
                    batches.withLock { $0.append(events.map(number)) }
                    // One bad event spoils its batch: none of it counts as applied.
                    if events.contains(where: { number($0) == 13 }) { throw Broken() }
                },
                logger: Logger(label: "test.events"))
            try await redis.xgroupCreate(eventStream(of: "orders"), group: "notifications")
            try await EventPublisher(redis: redis, service: "orders").publish(
                (0..<20).map { event($0) } + [event(0, type: "order.unknown")])
            let done = try await waitUntil {
                try await reader.poll()
                let pending = try await redis.xpendingCount(eventStream(of: "orders"), group: "notifications")
                return try await redis.send("XLEN", "orderly:dlq:notifications").integer == 1 && pending == 0
            }
            #expect(done)
            // The first ten together; the second ten, spoilt by #13, one by one.
            #expect(batches.withLock { $0 }.first == Array(0..<10))
            #expect(batches.withLock { $0 }.dropFirst().allSatisfy { $0 == Array(10..<20) })
            #expect(single.all.map { number($0.1) }.sorted() == [10, 11, 12, 14, 15, 16, 17, 18, 19])
            #expect(elsewhere.withLock { $0 } == 0)
        }
    }

    @Test("a consumer that starts while Redis is down waits for it instead of failing")
    func startWithoutRedis() async throws {
        try await withRedis { redis, server in
            await server.stop()
            let log = Log()
            let consumer = consumer(redis, name: "a") { log.add("a", $0) }
            let running = Task { try await consumer.run() }
            try await server.start()
            try await EventPublisher(redis: redis, service: "orders").publish(event(1))
            #expect(await waitUntil { log.all.count == 1 })
            running.cancel()
            try await running.value
        }
    }

    @Test("an operator sees each stream's groups: lag, pending entries and dead letters")
    func consumerGroups() async throws {
        try await withRedis { redis, server in
            let failing = consumer(redis, name: "a", maximumDeliveries: 1) { _ in
                throw OrderlyError(.invalidArgument, "never applies")
            }
            try await redis.xgroupCreate(eventStream(of: "orders"), group: "notifications")
            let publisher = EventPublisher(redis: redis, service: "orders")
            for index in 0..<3 { try await publisher.publish(event(index)) }
            let groups = ConsumerGroups(redis: redis)
            #expect(try await groups.streams() == [eventStream(of: "orders")])
            var found = try #require(try await groups.groups(of: eventStream(of: "orders")).first)
            #expect(found.name == "notifications" && found.lag == 3 && found.pending == 0)
            // Three read: each fails once, which is its last try, and goes to the dead letters.
            try await failing.poll()
            found = try #require(try await groups.groups(of: eventStream(of: "orders")).first)
            #expect(found.lag == 0 && found.pending == 0, "\(found)")
            #expect(try await groups.deadLetters(of: "notifications") == 3)
            #expect(try await groups.groups(of: eventStream(of: "nothing")).isEmpty)
        }
    }

    @Test("an operator lists, reads and replays dead letters; the replayed event is applied")
    func replayDeadLetters() async throws {
        try await withRedis { redis, server in
            let broken = Mutex(true)
            let applied = Mutex<[UUID]>([])
            struct Broken: Error, CustomStringConvertible { var description: String { "a bug, since fixed" } }
            let handler = consumer(redis, name: "a", maximumDeliveries: 2) { event in
                if broken.withLock({ $0 }) { throw Broken() }
                applied.withLock { $0.append(event.id) }
            }
            try await redis.xgroupCreate(eventStream(of: "orders"), group: "notifications")
            let publisher = EventPublisher(redis: redis, service: "orders")
            let original = event(1)
            try await publisher.publish(original)
            try await handler.poll()
            // A malformed entry too, which cannot be replayed.
            try await redis.xadd(eventStream(of: "orders"), fields: [("type", Array("order.created".utf8))])
            try await handler.poll()

            let deadLetters = DeadLetters(redis: redis)
            #expect(try await deadLetters.groups().map { "\($0.group)=\($0.count)" } == ["notifications=2"])
            let entries = try await deadLetters.list(group: "notifications")
            #expect(entries.count == 2)
            let first = try #require(entries.first)
            #expect(first.error == "a bug, since fixed" && first.sourceStream == eventStream(of: "orders"))
            #expect(first.fields["id"] == original.id.lowercasedText && first.fields["type"] == "order.created")
            #expect(try await deadLetters.entry(group: "notifications", id: first.id) == first)
            #expect(try await deadLetters.list(group: "notifications", after: first.id).map(\.id) == [entries[1].id])

            await #expect(throws: OrderlyError.self) {
                try await deadLetters.replay(group: "notifications", id: entries[1].id)
            }
            await #expect(throws: OrderlyError.self) { try await deadLetters.replay(group: "notifications", id: "1-1") }
            broken.withLock { $0 = false }
            try await deadLetters.replay(group: "notifications", id: first.id)
            #expect(try await deadLetters.list(group: "notifications").map(\.id) == [entries[1].id])
            try await handler.poll()
            #expect(applied.withLock { $0 } == [original.id])
        }
    }

    @Test("a failure of the moment is retried until it passes and never counts towards dead-lettering")
    func transientFailures() async throws {
        try await withRedis { redis, server in
            let attempts = Mutex(0)
            let flaky = consumer(redis, name: "a", maximumDeliveries: 3) { _ in
                // Ten times the database is away, more than the three failures allowed.
                let attempt = attempts.withLock {
                    $0 += 1
                    return $0
                }
                if attempt <= 10 { throw OrderlyError(.unavailable, "the database is away") }
            }
            try await redis.xgroupCreate(eventStream(of: "orders"), group: "notifications")
            try await EventPublisher(redis: redis, service: "orders").publish(event(1))
            #expect(try await flaky.poll() == 1)
            #expect(attempts.withLock { $0 } == 11)
            #expect(try await redis.send("XLEN", "orderly:dlq:notifications").integer == 0)
            #expect(try await redis.xpendingCount(eventStream(of: "orders"), group: "notifications") == 0)
        }
    }

    @Test("an aggregate's events are applied in stream order even when one of them fails first")
    func orderAfterRetry() async throws {
        try await withRedis { redis, server in
            struct Broken: Error {}
            let applied = Mutex<[Int]>([])
            let failedOnce = Mutex(false)
            let ordered = consumer(redis, name: "a") { event in
                let index = Int(event.payload.json.filter(\.isNumber))!
                if index == 1,
                    failedOnce.withLock({ failed in
                        defer { failed = true }; return !failed
                    })
                {
                    throw Broken()
                }
                applied.withLock { $0.append(index) }
            }
            try await redis.xgroupCreate(eventStream(of: "orders"), group: "notifications")
            let publisher = EventPublisher(redis: redis, service: "orders")
            // Events 1, 2 and 3 of one order, 4 of another.
            for index in 1...4 {
                let original = event(index)
                try await publisher.publish(
                    DomainEvent(
                        type: original.type, storeID: original.storeID, aggregateID: index < 4 ? "order-a" : "order-b",
                        payload: original.payload))
            }
            #expect(try await ordered.poll() == 4)
            let sequence = applied.withLock { $0 }
            #expect(sequence.filter { $0 < 4 } == [1, 2, 3])
            #expect(Set(sequence) == [1, 2, 3, 4])
        }
    }

    @Test("entries a dead consumer left pending are taken over once idle long enough")
    func reclaim() async throws {
        try await withRedis { redis, server in
            try await redis.xgroupCreate(eventStream(of: "orders"), group: "notifications")
            let publisher = EventPublisher(redis: redis, service: "orders")
            for index in 0..<3 { try await publisher.publish(event(index)) }
            let reading = ContinuousClock.now
            let taken = try await redis.xreadgroup(
                eventStream(of: "orders"), group: "notifications", consumer: "dead", count: 10)
            #expect(taken.count == 3)
            let log = Log()
            let survivor = consumer(redis, name: "alive", reclaimAfter: .milliseconds(300)) { log.add("alive", $0) }
            try await survivor.poll()
            // Not before they have been idle for 300 ms: unless this process was kept waiting that
            // long (the other suites load the machine), the first poll took nothing over.
            if reading.duration(to: .now) < .milliseconds(300) { #expect(log.all.isEmpty) }
            // Taken over once they have been idle for 300 ms.
            #expect(
                try await waitUntil {
                    try await survivor.poll()
                    return !log.all.isEmpty
                })
            #expect(log.all.map(\.1.aggregateID).sorted() == ["order-0", "order-1", "order-2"])
            #expect(try await redis.xpendingCount(eventStream(of: "orders"), group: "notifications") == 0)
        }
    }

    @Test("an entry that is not a valid event goes to the dead-letter stream with the reason")
    func malformed() async throws {
        try await withRedis { redis, server in
            let log = Log()
            let reader = consumer(redis, name: "a") { log.add("a", $0) }
            try await redis.xgroupCreate(eventStream(of: "orders"), group: "notifications")
            try await redis.send(
                "XADD", RedisArgument(eventStream(of: "orders")), "*", "type", "order.created", "id", "42")
            try await redis.send(
                "XADD", RedisArgument(eventStream(of: "orders")), "*", "id", RedisArgument(UUID().uuidString),
                "type", "order.created", "aggregate_id", "order-1", "occurred_at", "2026-11-22T10:00:00Z",
                "payload", #"{"n":1"#)
            try await reader.poll()
            #expect(log.all.isEmpty)
            let dead = try await redis.send("XRANGE", "orderly:dlq:notifications", "-", "+").elements ?? []
            let reasons = dead.map { $0.elements?.last?.elements?.compactMap(\.text) ?? [] }
            #expect(reasons.count == 2)
            #expect(reasons.first?.contains("malformed event: id is not a UUID") == true)
            #expect(reasons.last?.contains("malformed event: payload is not JSON") == true)
            #expect(try await redis.xpendingCount(eventStream(of: "orders"), group: "notifications") == 0)
        }
    }

    @Test("events of types nobody handles are acknowledged and skipped")
    func unhandledTypes() async throws {
        try await withRedis { redis, server in
            let log = Log()
            let reader = consumer(redis, name: "a") { log.add("a", $0) }
            try await redis.xgroupCreate(eventStream(of: "orders"), group: "notifications")
            try await EventPublisher(redis: redis, service: "orders").publish(event(1, type: "order.archived"))
            try await reader.poll()
            #expect(log.all.isEmpty)
            #expect(try await redis.xpendingCount(eventStream(of: "orders"), group: "notifications") == 0)
        }
    }

    @Test("a publish under a mark appends only while Redis has everything up to the mark")
    func markedPublish() async throws {
        try await withRedis { redis, server in
            let publisher = EventPublisher(redis: redis, service: "orders")
            let stream = RedisArgument(eventStream(of: "orders"))
            #expect(
                try await publisher.publish([event(1), event(2)], through: 2, expecting: 0) == .published(previous: 0))
            #expect(try await publisher.publish([event(3)], through: 3, expecting: 2) == .published(previous: 2))
            // A database that believes more was published than Redis has: nothing is appended.
            #expect(try await publisher.publish([event(4)], through: 9, expecting: 5) == .behind(mark: 3))
            #expect(try await redis.send("XLEN", stream).integer == 3)
            // An empty batch only checks.
            #expect(try await publisher.publish([], through: 3, expecting: 3) == .published(previous: 3))
            await server.stop()
            try await server.start()
            #expect(try await publisher.publish([], through: 3, expecting: 3) == .behind(mark: 0))
        }
    }

    @Test("trimming removes only what every group has acknowledged, and nothing without a group")
    func trimming() async throws {
        try await withRedis { redis, server in
            let stream = eventStream(of: "orders")
            let publisher = EventPublisher(redis: redis, service: "orders")
            try await publisher.publish((0..<10).map { event($0) })
            #expect(try await publisher.trimAcknowledged().removed == 0)

            try await redis.xgroupCreate(stream, group: "fast")
            try await redis.xgroupCreate(stream, group: "slow")
            let fast = try await redis.xreadgroup(stream, group: "fast", consumer: "a", count: 10)
            try await redis.xack(stream, group: "fast", ids: fast.map(\.id))
            // The slow group has read six, acknowledged the first four; two are pending.
            let slow = try await redis.xreadgroup(stream, group: "slow", consumer: "a", count: 6)
            try await redis.xack(stream, group: "slow", ids: slow.prefix(4).map(\.id))

            let trim = try await publisher.trimAcknowledged()
            #expect(trim.removed == 4)
            #expect(trim.oldestKept?.description == slow[4].id)
            #expect(trim.neededBy == "slow")
            #expect(try await redis.send("XLEN", RedisArgument(stream)).integer == 6)

            try await redis.xack(stream, group: "slow", ids: slow.suffix(2).map(\.id))
            #expect(try await publisher.trimAcknowledged().removed == 2)
            let rest = try await redis.xreadgroup(stream, group: "slow", consumer: "a", count: 10)
            try await redis.xack(stream, group: "slow", ids: rest.map(\.id))
            let last = try await publisher.trimAcknowledged()
            #expect(last.removed == 4)
            #expect(last.oldestKept == nil)
            #expect(try await redis.send("XLEN", RedisArgument(stream)).integer == 0)
        }
    }

    @Test("a consumer whose group Redis lost makes it again and reads the stream from its start")
    func groupLost() async throws {
        try await withRedis { redis, server in
            let log = Log()
            let reader = consumer(redis, name: "a") { log.add("a", $0) }
            let group = ServiceGroup(services: [reader], gracefulShutdownSignals: [], logger: Logger(label: "test"))
            let publisher = EventPublisher(redis: redis, service: "orders")
            try await withThrowingTaskGroup(of: Void.self) { tasks in
                tasks.addTask { try await group.run() }
                try await publisher.publish(event(1))
                #expect(await waitUntil { log.all.count == 1 })
                // Redis comes back empty: no stream, no group. An event published before the
                // consumer notices must still reach it.
                await server.stop()
                try await server.start()
                try await publisher.publish(event(2))
                #expect(await waitUntil { log.all.count == 2 })
                await group.triggerGracefulShutdown()
                try await tasks.waitForAll()
            }
            #expect(log.all.map(\.1.aggregateID) == ["order-1", "order-2"])
        }
    }

    @Test("a group of one process's own starts at the stream's end and is removed when the process stops")
    func processGroup() async throws {
        try await withRedis { redis, server in
            let stream = eventStream(of: "orders")
            try await EventPublisher(redis: redis, service: "orders").publish(event(0))
            let log = Log()
            let reader = EventConsumer(
                redis: redis,
                configuration: EventConsumerConfiguration(
                    stream: stream, group: "orders.stores.host-1", consumer: "host-1", durableGroup: false,
                    block: .milliseconds(10)),
                handlers: ["order.created": { log.add("a", $0) }], logger: Logger(label: "test.events"))
            let group = ServiceGroup(services: [reader], gracefulShutdownSignals: [], logger: Logger(label: "test"))
            func groups() async throws -> Int {
                try await redis.send("XINFO", "GROUPS", RedisArgument(stream)).elements?.count ?? 0
            }
            try await withThrowingTaskGroup(of: Void.self) { tasks in
                tasks.addTask { try await group.run() }
                #expect(try await waitUntil { try await groups() == 1 })
                try await EventPublisher(redis: redis, service: "orders").publish(event(1))
                #expect(await waitUntil { log.all.count == 1 })
                await group.triggerGracefulShutdown()
                try await tasks.waitForAll()
            }
            #expect(log.all.map(\.1.aggregateID) == ["order-1"])
            #expect(try await groups() == 0)
        }
    }
}
