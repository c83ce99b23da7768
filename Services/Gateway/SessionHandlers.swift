import Domain
import Foundation
import Storage

/// A user's own sessions: listed, and ended one by one (a lost phone, from another device). The
/// routes call them; signing out everywhere is `UsersHandlers.endSessions`.
struct SessionHandlers: Sendable {
    let database: Database
    let refreshTokens: RefreshTokensRepository
    let sessions: Sessions
    /// How long an access token lives: how long a session ended alone is remembered.
    let accessLifetime: Duration

    /// The caller's sessions that still stand, the latest used first, `current` marking the one
    /// the request came in.
    func list(by principal: Principal, current: String?) async throws -> [Session] {
        try await refreshTokens.sessions(of: principal.userID).map { session in
            var session = session
            session.current = session.id == current
            return session
        }
    }

    /// Ends the caller's session `id`: its refresh tokens revoked and its access tokens refused
    /// on every gateway within a moment; an unknown id, another's or one ended already is 404.
    func end(_ id: String, by principal: Principal) async throws {
        let (refreshTokens, until) = (self.refreshTokens, accessTokensUntil)
        let ended = try await database.transaction { transaction in
            try await refreshTokens.end(family: id, of: principal.userID, accessTokensUntil: until, in: transaction)
        }
        guard ended else { throw OrderlyError(.notFound, "no session \(id)") }
        await sessions.ended(principal.userID)
    }

    /// When the last access token issued now would expire.
    var accessTokensUntil: Int64 { Date.nowMilliseconds + Int64(accessLifetime.wholeMilliseconds) + 1000 }
}
