import Crypto
import Domain
import Foundation
import Logging
import Redis

/// Counts login attempts per account and per client address in Redis, in fixed windows, and
/// refuses once either passes its limit. When Redis cannot be reached logins are let through
/// (and a warning logged): a Redis outage should not lock every user out.
struct LoginLimiter: Sendable {
    let redis: RedisClient
    let perAccount: Int
    let perAddress: Int
    let window: Duration
    let logger: Logger

    /// Counts this attempt; throws `resource_exhausted` (429) when over a limit.
    func admit(email: String, address: String?) async throws(OrderlyError) {
        let seconds = Int(window.components.seconds)
        // Keys hold a hash, never the address itself.
        let accountKey = "orderly:ratelimit:login:account:\(Self.digest(email))"
        let addressKey = "orderly:ratelimit:login:address:\(Self.digest(address ?? "unknown"))"
        let replies: [RedisValue]
        do {
            replies = try await redis.pipeline([
                ["INCR", RedisArgument(accountKey)],
                ["EXPIRE", RedisArgument(accountKey), RedisArgument(seconds), "NX"],
                ["INCR", RedisArgument(addressKey)],
                ["EXPIRE", RedisArgument(addressKey), RedisArgument(seconds), "NX"],
            ])
        } catch {
            logger.warning("login rate limit not checked: Redis unavailable", metadata: ["error": "\(error)"])
            return
        }
        let account = replies[0].integer ?? 0
        let client = replies[2].integer ?? 0
        guard account <= perAccount, client <= perAddress else {
            throw OrderlyError(
                .resourceExhausted, "too many login attempts; try again in a few minutes", reason: "rate_limited",
                details: ["retry_after_seconds": .int(Int64(seconds))])
        }
    }

    static func digest(_ text: String) -> String {
        Hex.lowercased(Array(SHA256.hash(data: Data(text.utf8))).prefix(12))
    }
}
