import Crypto
import Domain
import Foundation
import Logging
import Redis
import Runtime

/// Counts login attempts per account and per client address (an IPv6 client by its /64) in
/// Redis, in windows, and refuses once either passes its limit, telling the client when to try
/// again; and, in hourly windows, each user's password changes and each address's sign-ups. An account that passes its limit again soon after waits longer each time: the window
/// doubles with each strike in the last day, up to 64 windows. One script counts and sets every
/// expiry, so no counter is ever left without one (an account locked for good). When Redis
/// cannot be reached logins are let through (and a warning logged): a Redis outage should not
/// lock every user out.
struct LoginLimiter: Sendable {
    let redis: RedisClient
    let perAccount: Int
    let perAddress: Int
    let window: Duration
    let logger: Logger

    /// KEYS: the account's counter, its strikes, the address's counter. ARGV: the window in
    /// seconds, the account's limit, the address's limit. Returns each counter and its time to
    /// live.
    static let script = """
        local window = tonumber(ARGV[1])
        local account = redis.call('INCR', KEYS[1])
        if account == 1 or redis.call('TTL', KEYS[1]) < 0 then redis.call('EXPIRE', KEYS[1], window) end
        if account == tonumber(ARGV[2]) + 1 then
          local strikes = redis.call('INCR', KEYS[2])
          redis.call('EXPIRE', KEYS[2], 86400)
          redis.call('EXPIRE', KEYS[1], window * math.pow(2, math.min(strikes - 1, 6)))
        end
        local address = redis.call('INCR', KEYS[3])
        if address == 1 or redis.call('TTL', KEYS[3]) < 0 then redis.call('EXPIRE', KEYS[3], window) end
        return {account, redis.call('TTL', KEYS[1]), address, redis.call('TTL', KEYS[3])}
        """

    /// The account's counter of sign-in attempts, keyed by a hash of its e-mail.
    /// Every sign-in counter shares the hash tag `{login}`, so that the script's keys share a slot
    /// of a Redis Cluster.
    static func accountKey(_ email: String) -> String { "orderly:ratelimit:{login}:account:\(digest(email))" }

    /// Lifts the lock failed sign-ins put on the account `email`, and its strikes; logged when
    /// Redis cannot be reached (the lock then ends with its window).
    static func unlock(email: String, redis: RedisClient, logger: Logger) async {
        let account = accountKey(email)
        do {
            try await redis.send("DEL", RedisArgument(account), RedisArgument(account + ":strikes"))
        } catch {
            logger.warning("the account's sign-in lock was not lifted", metadata: ["error": "\(error)"])
        }
    }

    /// Counts this attempt; throws `resource_exhausted` (429, with `retry_after_seconds`) when
    /// over a limit.
    func admit(email: String, address: IPAddress?) async throws(OrderlyError) {
        // Keys hold a hash, never the address or e-mail itself.
        let account = Self.accountKey(email)
        let client = "orderly:ratelimit:{login}:address:\(Self.digest(address?.rateLimitKey ?? "unknown"))"
        let counts: [Int64]
        do {
            let reply = try await redis.send(
                "EVAL", RedisArgument(Self.script), 3, RedisArgument(account), RedisArgument(account + ":strikes"),
                RedisArgument(client), RedisArgument(Int(window.components.seconds)), RedisArgument(perAccount),
                RedisArgument(perAddress))
            counts = (reply.elements ?? []).compactMap(\.integer)
            guard counts.count == 4 else { throw RedisError.unexpectedReply("login limit: \(reply)") }
        } catch {
            logger.warning("login rate limit not checked: Redis unavailable", metadata: ["error": "\(error)"])
            return
        }
        var wait: Int64 = 0
        if counts[0] > perAccount { wait = max(wait, counts[1]) }
        if counts[2] > perAddress { wait = max(wait, counts[3]) }
        guard wait == 0 else {
            throw OrderlyError(
                .rateLimited, "too many login attempts; try again in \(wait) seconds",
                details: ["retry_after_seconds": .int(max(1, wait))])
        }
    }

    /// Counts a change of `user`'s password, which is allowed `perHour` times an hour (each is a
    /// bcrypt hash the gateway computes); throws `resource_exhausted` (429, with
    /// `retry_after_seconds`) past it. Like logins, let through when Redis cannot be reached.
    func admitPasswordChange(of user: UserID, perHour: Int) async throws(OrderlyError) {
        try await count(
            "orderly:ratelimit:password:\(Self.digest(user.description))", perHour: perHour,
            what: "password changes")
    }

    /// Counts a sign-up from `address`, allowed `perHour` times an hour from one address (each
    /// is a new account and a bcrypt hash); throws `resource_exhausted` past it.
    func admitSignUp(address: IPAddress?, perHour: Int) async throws(OrderlyError) {
        try await count(
            "orderly:ratelimit:signup:\(Self.digest(address?.rateLimitKey ?? "unknown"))", perHour: perHour,
            what: "sign-ups from this address")
    }

    /// Counts an application to join from `address` against its hourly allowance.
    func admitApplication(address: IPAddress?, perHour: Int) async throws(OrderlyError) {
        try await count(
            "orderly:ratelimit:application:\(Self.digest(address?.rateLimitKey ?? "unknown"))", perHour: perHour,
            what: "applications from this address")
    }

    /// Counts a request for a password-reset e-mail from `address` against its hourly
    /// allowance; throws `resource_exhausted` past it.
    func admitPasswordResetRequest(address: IPAddress?, perHour: Int) async throws(OrderlyError) {
        try await count(
            "orderly:ratelimit:reset:address:\(Self.digest(address?.rateLimitKey ?? "unknown"))", perHour: perHour,
            what: "password reset requests from this address")
    }

    /// Counts a message of `kind` to `subject` (a user's or an application's id); throws 429
    /// past `perHour` an hour, for a caller who may be told.
    func admitMail(_ kind: MailTexts.Kind, to subject: String, perHour: Int) async throws(OrderlyError) {
        try await count(
            "orderly:ratelimit:mail:\(kind.rawValue):\(Self.digest(subject))", perHour: perHour,
            what: "\(kind.rawValue.replacingOccurrences(of: "_", with: " ")) e-mails")
    }

    /// Counts a message of `kind` to `subject`; false past `perHour` an hour (nothing more is
    /// mailed then, and nobody is told).
    func allowsMail(_ kind: MailTexts.Kind, to subject: String, perHour: Int) async -> Bool {
        do {
            try await admitMail(kind, to: subject, perHour: perHour)
            return true
        } catch {
            return false
        }
    }

    /// Counts one at `key` in an hour's window; throws once the window holds more than `perHour`.
    private func count(_ key: String, perHour: Int, what: String) async throws(OrderlyError) {
        let reply: RedisValue
        do {
            reply = try await redis.send("EVAL", RedisArgument(Self.windowScript), 1, RedisArgument(key), 3600)
        } catch {
            logger.warning("limit of \(what) not checked: Redis unavailable", metadata: ["error": "\(error)"])
            return
        }
        guard let counts = reply.elements?.compactMap(\.integer), counts.count == 2, counts[0] > perHour else { return }
        throw OrderlyError(
            .rateLimited, "too many \(what); try again in \(counts[1]) seconds",
            details: ["retry_after_seconds": .int(max(1, counts[1]))])
    }

    /// KEYS: a counter. ARGV: its window in seconds. Counts one and returns the count and its
    /// time to live.
    static let windowScript = """
        local count = redis.call('INCR', KEYS[1])
        if count == 1 or redis.call('TTL', KEYS[1]) < 0 then redis.call('EXPIRE', KEYS[1], ARGV[1]) end
        return {count, redis.call('TTL', KEYS[1])}
        """

    static func digest(_ text: String) -> String {
        Hex.lowercased(Array(SHA256.hash(data: Data(text.utf8))).prefix(12))
    }
}
