import Domain
import Foundation
import Logging
import Redis
import Storage
import Synchronization

/// Which access tokens still stand. Every user has a token version, carried by the access
/// tokens issued to them; ending a user's sessions (a password change, deactivation, a new
/// role) moves it on. The gateway checks each request's token against the version, read from
/// the database and kept for `freshness`; the replica that ends a user's sessions forgets its
/// copy at once and tells the others over `orderly:sessions:ended`, so an ended session stops
/// within a moment everywhere, and within `freshness` should the message be lost.
public final class Sessions: Sendable {
    static let channel = "orderly:sessions:ended"
    /// Beyond this many users the copies are dropped and read again.
    private static let capacity = 100_000

    private let users: UsersRepository
    private let redis: RedisClient
    private let freshness: Duration
    private let logger: Logger
    private let versions = Mutex<[UserID: (version: Int64, readAt: ContinuousClock.Instant)]>([:])

    init(users: UsersRepository, redis: RedisClient, freshness: Duration = .seconds(5), logger: Logger) {
        self.users = users
        self.redis = redis
        self.freshness = freshness
        self.logger = logger
    }

    /// Refuses a token issued under an older version than the user's, or for a user that no
    /// longer exists.
    func check(_ principal: Principal, tokenVersion: Int64) async throws(OrderlyError) {
        guard try await version(of: principal.userID) == tokenVersion else {
            throw OrderlyError(.invalidToken, "this session has ended; sign in again")
        }
    }

    private func version(of user: UserID) async throws(OrderlyError) -> Int64? {
        if let known = versions.withLock({ $0[user] }), known.readAt.duration(to: .now) < freshness {
            return known.version
        }
        let version: Int64?
        do {
            version = try await users.database.read { try await self.users.tokenVersion(of: user, in: $0) }
        } catch {
            throw OrderlyError(.unavailable, "sessions cannot be checked right now; retry")
        }
        versions.withLock { versions in
            if versions.count >= Self.capacity { versions.removeAll() }
            versions[user] = version.map { ($0, .now) }
        }
        return version
    }

    /// After a commit that ended `user`'s sessions: forgets the version here and tells the
    /// other replicas.
    func ended(_ user: UserID) async {
        forget(user)
        do {
            try await redis.send("PUBLISH", RedisArgument(Self.channel), RedisArgument(user.description))
        } catch {
            logger.warning(
                "other gateways not told of ended sessions; they notice within seconds",
                metadata: ["error": "\(error)"])
        }
    }

    func forget(_ user: UserID) { versions.withLock { $0[user] = nil } }

    /// Another replica's word that a user's sessions ended (`ChannelListener` on `channel`);
    /// a malformed message is skipped.
    func heard(_ message: RedisMessage, logger: Logger) {
        guard let user = UserID(String(decoding: message.payload, as: UTF8.self)) else {
            return logger.warning("malformed sessions message skipped")
        }
        forget(user)
    }
}
