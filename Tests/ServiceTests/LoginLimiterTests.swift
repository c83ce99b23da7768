import Domain
import Foundation
import Logging
import Redis
import Runtime
import TestSupport
import Testing

@testable import Gateway

@Suite("Login limits and client addresses")
struct LoginLimiterTests {
    @Test("addresses and networks are read, IPv6 clients counted by /64, IPv4-mapped ones as IPv4")
    func addresses() throws {
        #expect(IPAddress("192.0.2.7")?.rateLimitKey == "192.0.2.7")
        #expect(IPAddress("::ffff:192.0.2.7") == IPAddress("192.0.2.7"))
        #expect(IPAddress("2001:db8::1")?.rateLimitKey == IPAddress("2001:db8:0:0:ffff::9")?.rateLimitKey)
        #expect(IPAddress("2001:db8::1")?.rateLimitKey != IPAddress("2001:db8:0:1::1")?.rateLimitKey)
        for bad in ["", "192.0.2", "example.com", "1.2.3.4.5", "2001:db8::g"] {
            #expect(IPAddress(bad) == nil, "\(bad)")
        }
        let network = try #require(IPNetwork("10.0.0.0/8"))
        #expect(network.contains(IPAddress("10.200.1.1")!) && !network.contains(IPAddress("11.0.0.1")!))
        #expect(try #require(IPNetwork("fd00::/8")).contains(IPAddress("fd12::1")!))
        #expect(try #require(IPNetwork("192.0.2.7")).contains(IPAddress("192.0.2.7")!))
        #expect(!(try #require(IPNetwork("192.0.2.7"))).contains(IPAddress("192.0.2.8")!))
        for bad in ["10.0.0.0/33", "fd00::/129", "10.0.0.0/x", "nope/8"] { #expect(IPNetwork(bad) == nil, "\(bad)") }
    }

    @Test("X-Forwarded-For is believed only from a configured proxy, read from the right")
    func forwardedFor() {
        let none = ClientAddressResolver(trustedProxies: [])
        #expect(none.client(peer: "203.0.113.5", forwardedFor: ["198.51.100.1"]) == IPAddress("203.0.113.5"))
        let proxies = ClientAddressResolver(trustedProxies: [IPNetwork("10.0.0.0/8")!])
        // The client put a made-up address first; the proxy appended the one it saw.
        #expect(
            proxies.client(peer: "10.0.0.2", forwardedFor: ["1.1.1.1, 198.51.100.9, 10.0.0.7"])
                == IPAddress("198.51.100.9"))
        #expect(proxies.client(peer: "10.0.0.2", forwardedFor: []) == IPAddress("10.0.0.2"))
        #expect(proxies.client(peer: "10.0.0.2", forwardedFor: ["not an address"]) == IPAddress("10.0.0.2"))
        #expect(proxies.client(peer: "203.0.113.5", forwardedFor: ["198.51.100.1"]) == IPAddress("203.0.113.5"))
    }

    static func limiter(_ redis: RedisClient, perAccount: Int, perAddress: Int) -> LoginLimiter {
        LoginLimiter(
            redis: redis, perAccount: perAccount, perAddress: perAddress, window: .seconds(100),
            logger: Logger(label: "tests.limiter"))
    }

    /// How long the refusal says to wait; nil when admitted.
    static func wait(_ limiter: LoginLimiter, _ email: String, _ address: String) async -> Int64? {
        do {
            try await limiter.admit(email: email, address: IPAddress(address))
            return nil
        } catch {
            guard error.reason == .rateLimited, case .int(let seconds) = error.details?["retry_after_seconds"] else {
                return -1
            }
            return seconds
        }
    }

    @Test("an account over its limit waits out the window, longer after each strike; counters always expire")
    func accountBackoff() async throws {
        try await withRedis { redis, _ in
            let limiter = Self.limiter(redis, perAccount: 3, perAddress: 1000)
            for _ in 1...3 { #expect(await Self.wait(limiter, "a@x.com", "192.0.2.1") == nil) }
            let first = try #require(await Self.wait(limiter, "a@x.com", "192.0.2.1"))
            #expect((90...100).contains(first))
            // Another account from the same address is not affected.
            #expect(await Self.wait(limiter, "b@x.com", "192.0.2.1") == nil)
            // Every counter has an expiry.
            var cursor = "0"
            repeat {
                let reply = try await redis.send("SCAN", RedisArgument(cursor), "MATCH", "orderly:ratelimit:*")
                cursor = reply.elements?[0].text ?? "0"
                for key in reply.elements?[1].elements?.compactMap(\.text) ?? [] {
                    #expect(try await redis.send("TTL", RedisArgument(key)).integer ?? -1 > 0, "\(key)")
                }
            } while cursor != "0"

            // Once the window is over (its counter gone), the next strike waits twice as long.
            let account = LoginLimiter.accountKey("a@x.com")
            try await redis.send("DEL", RedisArgument(account))
            for _ in 1...3 { #expect(await Self.wait(limiter, "a@x.com", "192.0.2.1") == nil) }
            let second = try #require(await Self.wait(limiter, "a@x.com", "192.0.2.1"))
            #expect((190...200).contains(second))

            // A counter left without an expiry gets one at the next attempt.
            try await redis.send("SET", RedisArgument(account), "0")
            #expect(await Self.wait(limiter, "a@x.com", "192.0.2.1") == nil)
            #expect(try await redis.send("TTL", RedisArgument(account)).integer ?? -1 > 0)
        }
    }

    @Test("addresses of one IPv6 /64 share their limit")
    func ipv6Prefix() async throws {
        try await withRedis { redis, _ in
            let limiter = Self.limiter(redis, perAccount: 1000, perAddress: 2)
            #expect(await Self.wait(limiter, "a@x.com", "2001:db8::1") == nil)
            #expect(await Self.wait(limiter, "b@x.com", "2001:db8::2") == nil)
            #expect(await Self.wait(limiter, "c@x.com", "2001:db8::3") != nil)
            #expect(await Self.wait(limiter, "d@x.com", "2001:db8:0:1::1") == nil)
        }
    }
}
