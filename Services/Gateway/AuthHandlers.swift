import Contracts
import Domain
import Foundation
import Logging
import Runtime
import Storage
import Wire

/// The gateway's own methods of signing in: logins, refreshed tokens and logouts. The routes
/// call them.
struct AuthHandlers: Sendable {
    let database: Database
    let users: UsersRepository
    let refreshTokens: RefreshTokensRepository
    let tokens: TokenIssuer
    let passwords: PasswordHasher
    let limiter: LoginLimiter
    let signUpsPerAddressPerHour: Int
    /// Makes the accounts customers sign up for.
    let identity: UsersHandlers
    /// Answers the sign-ins of applicants not yet approved.
    let applications: ApplicationsHandlers
    /// Remembers a signed-out session until its access tokens expire.
    let sessions: SessionHandlers
    let logger: Logger

    func login(_ request: LoginRequest, client: SessionClient, address: IPAddress?) async throws -> TokenPair {
        let (email, password) = try request.validated()
        try await limiter.admit(email: email, address: address)
        let invalid = OrderlyError(.invalidCredentials, "wrong e-mail address or password")
        // One hash is checked whatever the address, so that every answer takes as long: an
        // account's; or, for an address with none, an applicant's (told why they cannot sign
        // in yet, once they give the password they chose) or a decoy.
        guard let found = try await users.find(email: email) else {
            throw try await applications.refusal(email: email, password: password) ?? invalid
        }
        guard try await passwords.verify(password, against: found.passwordHash), found.user.active else {
            throw invalid
        }
        return try await startSession(for: found.user, tokenVersion: found.tokenVersion, client: client)
    }

    /// A customer's sign-up, from `address`: every attempt counted against the address's hourly
    /// sign-ups, the account made by `identity`, and a session started as a login starts one.
    func signUp(_ request: SignUpRequest, client: SessionClient, address: IPAddress?) async throws -> TokenPair {
        try await limiter.admitSignUp(address: address, perHour: signUpsPerAddressPerHour)
        let user = try await identity.signUp(request)
        return try await startSession(for: user, tokenVersion: 0, client: client)
    }

    /// A new token family (a session) for `user` on `client`: an access token and a refresh
    /// token, the refresh token stored.
    private func startSession(for user: User, tokenVersion: Int64, client: SessionClient) async throws -> TokenPair {
        let (refreshTokens, tokens) = (self.refreshTokens, self.tokens)
        return try await database.transaction { transaction in
            let pair = try await tokens.issue(for: user, tokenVersion: tokenVersion, client: client)
            try await refreshTokens.insert(pair.refresh, in: transaction)
            return pair.tokens
        }
    }

    func refresh(_ request: RefreshRequest, client: SessionClient) async throws -> TokenPair {
        let token = try request.validated()
        let (users, refreshTokens, tokens) = (self.users, self.refreshTokens, self.tokens)
        // The revocation of a reused token's family must commit, so the refusal comes after.
        let outcome = try await database.transaction { transaction -> Result<TokenPair, OrderlyError> in
            switch try await refreshTokens.redeem(refreshToken: TokenIssuer.hash(token), in: transaction) {
            case .invalid:
                return .failure(
                    OrderlyError(.invalidToken, "the refresh token is invalid or expired"))
            case .reused:
                return .failure(
                    OrderlyError(
                        .refreshTokenReused,
                        "this refresh token was already used; every session of this login is now ended"))
            case .valid(let userID, let family, let till, let expiresAt):
                guard let user = try await users.find(userID, in: transaction.sql), user.active,
                    let version = try await users.tokenVersion(of: userID, in: transaction.sql)
                else {
                    return .failure(OrderlyError(.invalidToken, "the account is disabled"))
                }
                // A till's session keeps its first end: refreshing never makes it longer.
                let pair = try await tokens.issue(
                    for: user, tokenVersion: version, family: family, client: client, till: till,
                    refreshUntil: till == nil ? nil : expiresAt)
                try await refreshTokens.insert(pair.refresh, in: transaction)
                return .success(pair.tokens)
            }
        }
        switch outcome {
        case .success(let pair): return pair
        case .failure(let error):
            if error.reason == .refreshTokenReused { logger.warning("refresh token reused; family revoked") }
            throw error
        }
    }

    /// Ends the session of the refresh token given: its tokens revoked, and its access tokens
    /// refused from the next request.
    func logout(_ request: RefreshRequest, by principal: Principal) async throws {
        let token = try request.validated()
        let (refreshTokens, until) = (self.refreshTokens, sessions.accessTokensUntil)
        try await database.transaction { transaction in
            try await refreshTokens.endFamily(
                of: TokenIssuer.hash(token), user: principal.userID, accessTokensUntil: until, in: transaction)
        }
        await sessions.sessions.ended(principal.userID)
    }
}
