import Domain
import Events
import Foundation
import JSON
import Logging
import Synchronization
import TestSupport
import Testing

@testable import Redis

/// The cluster client against a real Redis Cluster of three masters on this machine
/// (`redis-server` in cluster mode, the slots spread by `CLUSTER ADDSLOTSRANGE`, the nodes joined
/// by `CLUSTER MEET`).
@Suite("Redis Cluster", .serialized, .timeLimit(.minutes(2)))
struct RedisClusterTests {
    /// Three masters holding every slot, a client of each node for setting up, and the cluster
    /// client under test; all stopped afterwards.
    static func withCluster(_ body: (RedisClusterClient, [RedisClient]) async throws -> Void) async throws {
        var servers: [RedisServerProcess] = []
        var directories: [String] = []
        for _ in 0..<3 {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cluster-\(UUID())").path
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            directories.append(directory)
            servers.append(
                try await RedisServerProcess.start(
                    directory: directory,
                    extraArguments: ["--cluster-enabled", "yes", "--cluster-node-timeout", "5000"]))
        }
        let nodes = servers.map { RedisClient(configuration: $0.configuration) }
        let cluster = RedisClusterClient(
            seeds: servers.map { RedisClusterClient.Node(host: "127.0.0.1", port: $0.port) },
            configuration: RedisConfiguration(poolSize: 2))
        defer {
            for directory in directories { try? FileManager.default.removeItem(atPath: directory) }
        }
        do {
            let ranges = [(0, 5460), (5461, 10922), (10923, 16383)]
            for (node, (start, end)) in zip(nodes, ranges) {
                try await node.send("CLUSTER", "ADDSLOTSRANGE", RedisArgument(start), RedisArgument(end))
            }
            for server in servers.dropFirst() {
                try await nodes[0].send("CLUSTER", "MEET", "127.0.0.1", RedisArgument(server.port))
            }
            // Every node sees every slot served before the test begins.
            for node in nodes {
                try await eventually("the cluster is ready") {
                    (try await node.send("CLUSTER", "INFO").text ?? "").contains("cluster_state:ok")
                }
                try await eventually("every node knows the three masters") {
                    let slots = try await node.send("CLUSTER", "SLOTS").elements ?? []
                    return Set(slots.compactMap { $0.elements?[2].elements?[1].integer }).count == 3
                }
            }
            try await body(cluster, nodes)
        } catch {
            await stop(cluster, nodes, servers)
            throw error
        }
        await stop(cluster, nodes, servers)
    }

    private static func stop(_ cluster: RedisClusterClient, _ nodes: [RedisClient], _ servers: [RedisServerProcess])
        async
    {
        await cluster.shutdown()
        for node in nodes { await node.shutdown() }
        for server in servers { await server.stop() }
    }

    /// Waits until `condition` holds, checking every 50 ms, for at most 20 s.
    private static func eventually(_ what: String, _ condition: () async throws -> Bool) async throws {
        for _ in 0..<400 {
            if try await condition() { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw RedisError.unavailable("timed out waiting until \(what)")
    }

    @Test("a key's slot is the one Redis computes, hash tags included")
    func slots() async throws {
        #expect(RedisClusterClient.slot(of: "123456789") == 12739)  // the specification's example
        try await Self.withCluster { _, nodes in
            let keys =
                [
                    "", "a", "{}", "{}x", "{a", "a}", "{a}", "x{a}y", "{a}{b}", "{{a}}", "a{b}c{d}",
                    "orderly:events:orders:{s17}",
                ]
                + (0..<200).map { "order:\($0):\(UUID())" } + ["é{ü}", "\u{1F600}"]
            for key in keys {
                let slot = try await nodes[0].send("CLUSTER", "KEYSLOT", RedisArgument(key)).integer
                #expect(RedisClusterClient.slot(of: key) == Int(slot ?? -1), "\(key)")
            }
        }
    }

    @Test("commands go to the master of their key's slot; keys with one hash tag share it, a stream and its group too")
    func routing() async throws {
        try await Self.withCluster { cluster, nodes in
            for index in 0..<300 {
                try await cluster.send(key: "k\(index)", ["SET", RedisArgument("k\(index)"), RedisArgument(index)])
            }
            var held: [Int64] = []
            for node in nodes { held.append(try await node.send("DBSIZE").integer ?? -1) }
            #expect(held.reduce(0, +) == 300 && held.allSatisfy { $0 > 50 }, "\(held)")
            for index in 0..<300 {
                #expect(
                    try await cluster.send(key: "k\(index)", ["GET", RedisArgument("k\(index)")]).integer
                        == Int64(index))
            }

            // A store's events: one stream, its consumer group, read and acknowledged in one slot.
            let stream = "orderly:events:orders:{s17}"
            let replies = try await cluster.pipeline(
                key: stream,
                [
                    ["XGROUP", "CREATE", RedisArgument(stream), "notifications", "0", "MKSTREAM"],
                    ["XADD", RedisArgument(stream), "*", "type", "order.created"],
                    [
                        "XREADGROUP", "GROUP", "notifications", "n1", "COUNT", "10", "STREAMS", RedisArgument(stream),
                        ">",
                    ],
                ])
            #expect(replies.count == 3 && replies[0] == .status("OK"), "\(replies)")
            let read = replies[2].elements?.first?.elements?[1].elements ?? []
            #expect(read.count == 1)
            #expect(try await cluster.node(for: stream) == cluster.node(for: "{s17}-anything"))
        }
    }

    @Test(
        "a key of a slot being migrated is followed once with ASKING; a slot moved is followed and the map read again")
    func redirections() async throws {
        try await Self.withCluster { cluster, nodes in
            let key = "order:migrating"
            try await cluster.send(key: key, ["SET", RedisArgument(key), "42"])
            let slot = RedisClusterClient.slot(of: key)
            let from = try await cluster.node(for: key)
            let ports = try await nodes.asyncMap { try await $0.send("CONFIG", "GET", "port").elements?[1].integer }
            let source = nodes[ports.firstIndex(of: Int64(from.port))!]
            let targetIndex = ports.firstIndex { $0 != Int64(from.port) }!
            let target = nodes[targetIndex]
            let targetPort = Int(ports[targetIndex]!)
            let sourceID = try await source.send("CLUSTER", "MYID").text!
            let targetID = try await target.send("CLUSTER", "MYID").text!

            // Migrating: the key moves to the target; its old master answers ASK.
            try await target.send("CLUSTER", "SETSLOT", RedisArgument(slot), "IMPORTING", RedisArgument(sourceID))
            try await source.send("CLUSTER", "SETSLOT", RedisArgument(slot), "MIGRATING", RedisArgument(targetID))
            try await source.send("MIGRATE", "127.0.0.1", RedisArgument(targetPort), RedisArgument(key), "0", "5000")
            #expect(try await cluster.send(key: key, ["GET", RedisArgument(key)]) == .bulk(Array("42".utf8)))
            #expect(try await cluster.node(for: key) == from, "an ASK leaves the map as it was")

            // Moved: the slot is the target's now; its old master answers MOVED.
            for node in nodes {
                try await node.send("CLUSTER", "SETSLOT", RedisArgument(slot), "NODE", RedisArgument(targetID))
            }
            #expect(try await cluster.send(key: key, ["INCR", RedisArgument(key)]) == .integer(43))
            #expect(try await cluster.node(for: key).port == targetPort, "a MOVED reads the map again")
        }
    }

    @Test(
        "a service's events over three streams of the cluster: a store's on one, in order, a mark per shard, read by a group on each; sharded wake-ups heard from their slot's master"
    )
    func shards() async throws {
        try await Self.withCluster { _, nodes in
            let seeds = nodes.map { RedisClusterClient.Node(host: "127.0.0.1", port: $0.configuration.port) }
            let configuration = RedisConfiguration(
                host: "127.0.0.1", port: seeds[0].port, clusterSeeds: seeds, streamShards: 3)
            let redis = RedisClient(configuration: configuration)
            let streams = eventStreams(of: "orders", shards: 3)
            #expect(Set(streams.map(RedisClusterClient.slot(of:))).count == 3)

            // Five rounds of an event for each of twelve stores, four on each shard (twelve drawn at
            // random leave one empty a time in fifty), under the relay's mark.
            var byShard: [Int: [StoreID]] = [:]
            while byShard.values.map(\.count).reduce(0, +) < 12 {
                let store = StoreID()
                let probe = DomainEvent(
                    type: "order.created", storeID: store, aggregateID: "probe", occurredAt: Date(),
                    payload: EventPayload(encodedJSON: "{}"), trace: nil)
                let shard = streamShard(of: probe, shards: 3)
                if byShard[shard, default: []].count < 4 { byShard[shard, default: []].append(store) }
            }
            let stores = byShard.keys.sorted().flatMap { byShard[$0]! }
            let events = (0..<5).flatMap { round in
                stores.map { store in
                    DomainEvent(
                        type: "order.created", storeID: store, aggregateID: "order-of-\(store)", occurredAt: Date(),
                        payload: EventPayload(encodedJSON: "{\"round\":\(round)}"), trace: nil)
                }
            }
            let publisher = EventPublisher(redis: redis, service: "orders")
            #expect(try await publisher.publish(events, through: 60, expecting: 0) == .published(previous: 0))
            var held: [Int64] = []
            for stream in streams { held.append(try await redis.send("XLEN", RedisArgument(stream)).integer ?? -1) }
            #expect(held == [20, 20, 20], "\(held)")
            // Every shard's mark moved: one that lost its mark is behind, and says from where.
            #expect(try await publisher.publish([], through: 60, expecting: 60) == .published(previous: 60))
            try await redis.send("SET", "orderly:published:orders:{orders.1}", "10")
            #expect(try await publisher.publish([], through: 60, expecting: 60) == .behind(mark: 10))

            // A group on each shard's stream reads every event once, each store's in order.
            let read = Mutex<[DomainEvent]>([])
            let consumers = try await streams.asyncMap { stream in
                try await redis.xgroupCreate(stream, group: "notifications")
                return EventConsumer(
                    redis: redis,
                    configuration: EventConsumerConfiguration(
                        stream: stream, group: "notifications", consumer: "n1", batchSize: 7,
                        block: .milliseconds(10)),
                    handlers: ["order.created": { event in read.withLock { $0.append(event) } }],
                    logger: Logger(label: "test.shards"))
            }
            while read.withLock({ $0.count }) < 60 {
                for consumer in consumers { try await consumer.poll() }
            }
            let all = read.withLock { $0 }
            #expect(Set(all.map(\.id)) == Set(events.map(\.id)) && all.count == 60)
            for store in stores {
                #expect(all.filter { $0.storeID == store }.map(\.payload.json) == (0..<5).map { "{\"round\":\($0)}" })
            }
            for stream in streams {
                #expect(try await redis.xpendingCount(stream, group: "notifications") == 0)
                let deadLetters = deadLetterStream(of: "notifications", from: stream)
                #expect(
                    RedisClusterClient.slot(of: deadLetters) == RedisClusterClient.slot(of: stream), "\(deadLetters)")
            }
            #expect(try await redis.keys(matching: "orderly:events:*") == streams.sorted())

            // Sharded wake-ups: each channel heard by a subscriber of its slot's master.
            let channels = shardedChannels(of: "orderly:wake", shards: 3)
            let subscribers = channels.map {
                RedisSubscriber(configuration: configuration, channels: [$0], sharded: true)
            }
            try await Self.eventually("every subscriber is subscribed") { subscribers.allSatisfy(\.isSubscribed) }
            for channel in channels {
                try await redis.send("SPUBLISH", RedisArgument(channel), RedisArgument("hello " + channel))
            }
            for (subscriber, channel) in zip(subscribers, channels) {
                var messages = subscriber.messages.makeAsyncIterator()
                #expect(
                    await messages.next() == RedisMessage(channel: channel, payload: Array("hello \(channel)".utf8)))
                subscriber.stop()
            }
            await redis.shutdown()
        }
    }

    @Test("MOVED and ASK replies are read as redirections; anything else is not")
    func redirectionReplies() {
        typealias Redirection = RedisClusterClient.Redirection
        let node = RedisClusterClient.Node(host: "127.0.0.1", port: 6381)
        #expect(Redirection(.error("MOVED 3999 127.0.0.1:6381")) == .moved(node))
        #expect(Redirection(.error("ASK 3999 127.0.0.1:6381")) == .ask(node))
        #expect(Redirection(.error("MOVED 3999 ::1:6381")) == .moved(.init(host: "::1", port: 6381)))
        for reply: RedisValue in [
            .error("ERR wrong"), .error("MOVED x 127.0.0.1:6381"), .error("MOVED 1 host:0"),
            .error("MOVED 1 nocolon"), .status("MOVED 1 127.0.0.1:6381"), .null,
        ] {
            #expect(Redirection(reply) == nil, "\(reply)")
        }
    }
}

extension Array {
    fileprivate func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var results: [T] = []
        for element in self { results.append(try await transform(element)) }
        return results
    }
}
