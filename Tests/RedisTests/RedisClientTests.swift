import Foundation
import Redis
import Synchronization
import TestSupport
import Testing

@Suite("Redis through hiredis", .serialized, .timeLimit(.minutes(1)))
struct RedisClientTests {
    @Test("commands are binary-safe and replies are typed; an error reply is thrown")
    func commands() async throws {
        try await withRedis { redis, server in
            let binary: [UInt8] = [0, 1, 13, 10, 255, 0x24, 0x2A]
            try await redis.send("SET", "k", RedisArgument(binary))
            #expect(try await redis.send("GET", "k") == .bulk(binary))
            #expect(try await redis.send("GET", "missing") == .null)
            #expect(try await redis.send("INCRBY", "n", 41) == .integer(41))
            #expect(try await redis.send("SET", "empty", "") == .status("OK"))
            #expect(try await redis.send("GET", "empty") == .bulk([]))
            await #expect(throws: RedisError.self) { try await redis.send("INCR", "k") }
        }
    }

    @Test("a Redis that speaks TLS alone is reached through a local stunnel that checks its certificate")
    func throughStunnel() async throws {
        let server = try await RedisServerProcess.start(tls: true)
        let redis = RedisClient(configuration: server.configuration)
        #expect(try await redis.send("SET", "over", "tls").text == "OK")
        #expect(try await redis.send("GET", "over").text == "tls")
        await redis.shutdown()
        // Its own port refuses a client without TLS.
        var plain = server.configuration
        plain.port = try #require(server.tlsPort)
        plain.poolSize = 1
        let direct = RedisClient(configuration: plain)
        await #expect(throws: (any Error).self) { _ = try await direct.send("PING") }
        await direct.shutdown()
        await server.stop()
    }

    @Test("a pipeline sends many commands at once and returns every reply in order")
    func pipelining() async throws {
        try await withRedis { redis, server in
            let replies = try await redis.pipeline(Array(repeating: ["INCR", "counter"], count: 1000) + [["BOGUS"]])
            #expect(replies.count == 1001)
            #expect(replies.prefix(1000).map(\.integer) == (1...1000).map { Int64($0) })
            guard case .error = replies[1000] else {
                Issue.record("an unknown command should answer with an error reply")
                return
            }
        }
    }

    @Test("the pool serves many concurrent callers")
    func concurrency() async throws {
        try await withRedis { redis, server in
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<200 { group.addTask { try await redis.send("INCR", "hits") } }
                try await group.waitForAll()
            }
            #expect(try await redis.send("GET", "hits").integer == 200)
        }
    }

    @Test("commands fail cleanly while Redis is down and work again once it is back")
    func outage() async throws {
        try await withRedis { redis, server in
            try await redis.send("SET", "before", "1")
            await server.stop()
            let started = ContinuousClock.now
            for _ in 0..<3 {
                await #expect(throws: RedisError.self) { try await redis.send("GET", "before") }
            }
            #expect(ContinuousClock.now - started < .seconds(5))
            try await server.start()
            #expect(try await redis.send("SET", "after", "2") == .status("OK"))
        }
    }

    @Test("URLs carry a user, a password and a database, or a cluster's nodes; their text shows no password")
    func urls() throws {
        let full = try #require(RedisConfiguration(url: "redis://alice:p%40ss%3Aword@cache.internal:6380/2"))
        #expect(full.host == "cache.internal" && full.port == 6380 && full.database == 2)
        #expect(full.username == "alice" && full.password == "p@ss:word")
        #expect(full.description == "redis://alice:***@cache.internal:6380/2")
        let passwordOnly = try #require(RedisConfiguration(url: "redis://:secret@127.0.0.1:6379"))
        #expect(passwordOnly.username == nil && passwordOnly.password == "secret" && passwordOnly.database == 0)
        let plain = try #require(RedisConfiguration(url: "redis://127.0.0.1:6379/"))
        #expect(plain.password == nil && plain.description == "redis://127.0.0.1:6379/0")
        #expect(!plain.isCluster)
        let cluster = try #require(RedisConfiguration(url: "redis-cluster://:secret@10.0.0.1:7000,10.0.0.2:7001"))
        #expect(cluster.isCluster && cluster.host == "10.0.0.1" && cluster.port == 7000 && cluster.password == "secret")
        #expect(cluster.clusterSeeds.map(\.description) == ["10.0.0.1:7000", "10.0.0.2:7001"])
        #expect(cluster.description == "redis-cluster://:***@10.0.0.1:7000,10.0.0.2:7001")
        for bad in [
            "redis://127.0.0.1", "http://127.0.0.1:6379", "redis://alice@127.0.0.1:6379", "redis://:@127.0.0.1:6379",
            "redis://127.0.0.1:6379/x", "redis://127.0.0.1:6379/-1", "redis://127.0.0.1:70000",
            "redis-cluster://127.0.0.1:7000,", "redis-cluster://127.0.0.1:7000/0", "redis-cluster://",
        ] {
            #expect(RedisConfiguration(url: bad) == nil, "\(bad)")
        }
    }

    @Test("Redis unreachable, loading, or a cluster not serving every slot yet is of the moment; other errors are not")
    func transientErrors() {
        for error in [
            RedisError.unavailable("refused"), .server("CLUSTERDOWN The cluster is down"),
            .server("LOADING Redis is loading the dataset in memory"), .server("TRYAGAIN Multiple keys request"),
            .server("MASTERDOWN Link with MASTER is down"),
        ] {
            #expect(error.isTransient, "\(error)")
        }
        for error in [
            RedisError.server("ERR unknown command"), .server("NOGROUP No such key"), .server("CLUSTERDOWNx"),
            .unexpectedReply("?"),
        ] {
            #expect(!error.isTransient, "\(error)")
        }
    }

    @Test("a server that asks for a password, or an ACL user, is reached with them, and refuses without")
    func authentication() async throws {
        try await withRedis(
            password: "default-secret",
            extraArguments: ["--user", "orders", "on", ">orders-secret", "~*", "&*", "+@all"]
        ) { asDefault, server in
            let asUser = try #require(
                RedisConfiguration(url: "redis://orders:orders-secret@127.0.0.1:\(server.port)/3"))
            let user = RedisClient(configuration: asUser)
            try await user.send("SET", "k", "in three")
            #expect(try await user.send("ACL", "WHOAMI") == .bulk(Array("orders".utf8)))
            await user.shutdown()

            #expect(try await asDefault.send("GET", "k") == .null)
            let inThree = RedisClient(
                configuration: try #require(
                    RedisConfiguration(url: "redis://:default-secret@127.0.0.1:\(server.port)/3")))
            #expect(try await inThree.send("GET", "k") == .bulk(Array("in three".utf8)))
            await inThree.shutdown()

            for url in ["redis://127.0.0.1:\(server.port)", "redis://orders:wrong@127.0.0.1:\(server.port)"] {
                let refused = RedisClient(configuration: try #require(RedisConfiguration(url: url)))
                await #expect(throws: RedisError.self) { try await refused.send("PING") }
                await refused.shutdown()
            }
        }
    }

    @Test("two consumers of one group share a stream; acknowledged entries leave the pending list")
    func consumerGroups() async throws {
        try await withRedis { redis, server in
            try await redis.xgroupCreate("orderly:events:test", group: "workers")
            try await redis.xgroupCreate("orderly:events:test", group: "workers")
            for index in 0..<20 {
                try await redis.xadd("orderly:events:test", fields: [("n", Array("\(index)".utf8))])
            }
            let first = try await redis.xreadgroup("orderly:events:test", group: "workers", consumer: "a", count: 12)
            let second = try await redis.xreadgroup(
                "orderly:events:test", group: "workers", consumer: "b", count: 12, block: .milliseconds(100))
            #expect(first.count == 12)
            #expect(second.count == 8)
            let seen = (first + second).compactMap { $0.fields["n"].map { String(decoding: $0, as: UTF8.self) } }
            #expect(Set(seen) == Set((0..<20).map(String.init)))
            #expect(try await redis.xpendingCount("orderly:events:test", group: "workers") == 20)
            #expect(try await redis.xack("orderly:events:test", group: "workers", ids: first.map(\.id)) == 12)
            #expect(try await redis.xpendingCount("orderly:events:test", group: "workers") == 8)
        }
    }

    @Test("entries a dead consumer left pending are reclaimed by another")
    func reclaim() async throws {
        try await withRedis { redis, server in
            try await redis.xgroupCreate("s", group: "g")
            for index in 0..<5 { try await redis.xadd("s", fields: [("n", Array("\(index)".utf8))]) }
            let taken = try await redis.xreadgroup("s", group: "g", consumer: "dead", count: 10)
            #expect(taken.count == 5)
            let early = try await redis.xautoclaim("s", group: "g", consumer: "alive", minimumIdle: .seconds(60))
            #expect(early.entries.isEmpty)
            // Taken over once they have been idle for 50 ms.
            let claimed = try await eventually {
                let claimed = try await redis.xautoclaim(
                    "s", group: "g", consumer: "alive", minimumIdle: .milliseconds(50))
                return claimed.entries.isEmpty ? nil : claimed.entries
            }
            #expect(claimed?.map(\.id) == taken.map(\.id))
        }
    }

    @Test("a subscriber receives messages, and again after Redis restarted")
    func subscriber() async throws {
        try await withRedis { redis, server in
            let subscriber = RedisSubscriber(configuration: server.configuration, channels: ["orderly:wake"])
            var messages = subscriber.messages.makeAsyncIterator()
            #expect(await waitUntil { subscriber.isSubscribed })
            try await redis.send("PUBLISH", "orderly:wake", "first")
            #expect(await messages.next()?.payload == Array("first".utf8))

            await server.stop()
            #expect(await waitUntil { !subscriber.isSubscribed })
            try await server.start()
            #expect(await waitUntil { subscriber.isSubscribed })
            try await redis.send("PUBLISH", "orderly:wake", "second")
            let message = await messages.next()
            #expect(message == RedisMessage(channel: "orderly:wake", payload: Array("second".utf8)))
            subscriber.stop()
            #expect(await messages.next() == nil)
        }
    }
}
