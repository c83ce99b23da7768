import Domain
import Foundation
import Logging
import Redis
import Storage
import Synchronization

/// Which access tokens still stand. Every user has a token version, carried by the access
/// tokens issued to them; ending a user's sessions (a password change, deactivation, a new
/// role) moves it on. A token also names its session (its refresh-token family), which its user
/// may end alone (a signed-out device, a session ended from the list): the ended ones are kept
/// until the last access token issued in them has expired. The gateway checks each request's
/// token against both, read from the database and kept for `freshness`; the replica that ends
/// sessions forgets its copy at once and tells the others over `orderly:sessions:ended`, so an
/// ended session stops within a moment everywhere, and within `freshness` should the message
/// be lost.
public final class Sessions: Sendable {
    static let channel = "orderly:sessions:ended"
    /// Beyond this many users the copies are dropped and read again.
    private static let capacity = 100_000

    private let users: UsersRepository
    private let redis: RedisClient
    private let freshness: Duration
    private let logger: Logger
    private let states = Mutex<[UserID: (state: UsersRepository.TokenState, readAt: ContinuousClock.Instant)]>([:])

    init(users: UsersRepository, redis: RedisClient, freshness: Duration = .seconds(5), logger: Logger) {
        self.users = users
        self.redis = redis
        self.freshness = freshness
        self.logger = logger
    }

    /// Refuses a token issued under an older version than the user's or in a session that was
    /// ended, or for a user that no longer exists.
    func check(_ principal: Principal, tokenVersion: Int64, session: String?) async throws(OrderlyError) {
        guard let state = try await state(of: principal.userID), state.version == tokenVersion,
            session.map({ !state.endedSessions.contains($0) }) ?? true
        else {
            throw OrderlyError(.invalidToken, "this session has ended; sign in again")
        }
    }

    private func state(of user: UserID) async throws(OrderlyError) -> UsersRepository.TokenState? {
        if let known = states.withLock({ $0[user] }), known.readAt.duration(to: .now) < freshness {
            return known.state
        }
        let state: UsersRepository.TokenState?
        do {
            state = try await users.database.read { try await self.users.tokenState(of: user, in: $0) }
        } catch {
            throw OrderlyError(.unavailable, "sessions cannot be checked right now; retry")
        }
        states.withLock { states in
            if states.count >= Self.capacity { states.removeAll() }
            states[user] = state.map { ($0, .now) }
        }
        return state
    }

    /// After a commit that ended `user`'s sessions, or one of them: forgets what was read here and
    /// tells the other replicas.
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

    func forget(_ user: UserID) { states.withLock { $0[user] = nil } }

    /// Another replica's word that a user's sessions ended (`ChannelListener` on `channel`);
    /// a malformed message is skipped.
    func heard(_ message: RedisMessage, logger: Logger) {
        guard let user = UserID(String(decoding: message.payload, as: UTF8.self)) else {
            return logger.warning("malformed sessions message skipped")
        }
        forget(user)
    }
}
