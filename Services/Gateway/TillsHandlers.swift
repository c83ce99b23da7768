import Contracts
import Domain
import Foundation
import Logging
import Runtime
import Storage
import Wire

/// Shared tills: registered, listed and revoked by a store's owners and managers (and admins);
/// PINs set by their user or the store's owners and managers; and sign-ins by PIN on a till,
/// which open a session as a login does, marked as the till's: it ends at most `sessionLifetime`
/// after the PIN, however often it is refreshed, and when the till is revoked. A colleague takes
/// over by signing in on the same till; the till itself is never signed out. Five wrong PINs in
/// a row lock the user out of every till for a quarter of an hour, counted in the database so
/// that the count holds whatever happens to Redis.
struct TillsHandlers: Sendable {
    let database: Database
    let tills: TillsRepository
    let users: UsersRepository
    let refreshTokens: RefreshTokensRepository
    let tokens: TokenIssuer
    let passwords: PasswordHasher
    let limiter: LoginLimiter
    let passwordChangesPerHour: Int
    /// Ends sessions as a user's own ending of one does, and says until when they are refused.
    let ownSessions: SessionHandlers
    /// The longest a session opened by PIN lasts: a shift.
    let sessionLifetime: Duration
    /// Tells whether a store an admin names exists.
    let catalog: any WireCaller

    /// Registers a till of `store`: the token is in the answer, and only its hash is kept.
    func register(_ draft: TillDraft, in store: StoreID, by principal: Principal) async throws -> RegisteredTill {
        let policy = AccessPolicy(principal)
        guard policy.canSee(store: store) else { throw OrderlyError(.notFound, "no store \(store)") }
        guard policy.canManageTills(of: store) else {
            throw OrderlyError(.permissionDenied, "only the store's owners and managers and admins register its tills")
        }
        let name = try draft.validated()
        // An admin may name any store: it must exist.
        _ = try await catalog.call(
            CatalogAPI.getStore, ResourceRef(id: store), options: WireCallOptions(principal: principal))
        let till = Till(
            id: TillID(), storeID: store, name: name, createdBy: principal.userID, createdAt: Date.currentMillisecond)
        let token = "till_" + TokenIssuer.randomToken()
        let tills = self.tills
        try await database.transaction { try await tills.insert(till, tokenHash: TokenIssuer.hash(token), in: $0) }
        return RegisteredTill(till: till, token: token)
    }

    /// The store's tills, revoked ones included.
    func list(of store: StoreID, by principal: Principal) async throws -> [Till] {
        let policy = AccessPolicy(principal)
        guard policy.canSee(store: store), policy.canManageTills(of: store) else {
            throw OrderlyError(.notFound, "no store \(store)")
        }
        return try await tills.tills(of: store)
    }

    /// Revokes a till: it signs nobody in from now, and every session opened on it ends.
    /// Revoking a revoked till answers it as it is.
    func revoke(_ id: TillID, by principal: Principal) async throws -> Till {
        let (tills, refreshTokens, until) = (self.tills, self.refreshTokens, ownSessions.accessTokensUntil)
        let policy = AccessPolicy(principal)
        let (till, ended) = try await database.transaction { transaction -> (Till, Set<UserID>) in
            try await transaction.lock(.till(id))
            guard var till = try await tills.find(id, in: transaction.sql), policy.canManageTills(of: till.storeID)
            else { throw OrderlyError(.notFound, "no till \(id)") }
            guard till.revokedAt == nil else { return (till, []) }
            till.revokedAt = Date.currentMillisecond
            try await tills.revoke(till, in: transaction)
            return (till, try await refreshTokens.endSessions(on: id, accessTokensUntil: until, in: transaction))
        }
        for user in ended { await ownSessions.sessions.ended(user) }
        return till
    }

    /// Sets `user`'s PIN (with nil, clears it), which lifts a lockout: the user themself, or an
    /// admin or their store's owner or manager; only a store's people have one.
    func setPIN(_ change: PINChange?, of id: UserID, by principal: Principal) async throws {
        let policy = AccessPolicy(principal)
        guard let user = try await database.read({ try await users.find(id, in: $0) }), policy.canSee(user: user)
        else { throw OrderlyError(.notFound, "no user \(id)") }
        guard policy.canSetPIN(of: user) else {
            throw OrderlyError(
                .permissionDenied, "a PIN is set by its user, or by an admin or the store's owners and managers")
        }
        guard user.role.isStoreRole else {
            throw OrderlyError.invalidFields(["pin": "is for a store's owners, managers and staff"])
        }
        var hash: String?
        if let change {
            let pin = try change.validated()
            try await limiter.admitPasswordChange(of: id, perHour: passwordChangesPerHour)
            hash = try await passwords.hash(pin)
        }
        let tills = self.tills
        try await database.transaction { [hash] in try await tills.setPIN(hash, of: id, in: $0) }
    }

    /// Signs `request.user_id` in on the till whose token is `tillToken`, with their PIN.
    /// Whatever is wrong (the user, the PIN, the store) is one answer, 401 `invalid_credentials`,
    /// after one hash is checked; a user locked out is 429 with `retry_after_seconds`.
    func signIn(_ request: PINSignIn, tillToken: String?, client: SessionClient) async throws -> TokenPair {
        let refused = OrderlyError(.invalidCredentials, "wrong user or PIN")
        guard let tillToken, !tillToken.isEmpty, tillToken.utf8.count <= 200,
            let till = try await tills.find(tokenHash: TokenIssuer.hash(tillToken))
        else {
            throw OrderlyError(.invalidCredentials, "the till is not registered, or was revoked: X-Till-Token")
        }
        let (id, pin) = try request.validated()
        let (users, tills) = (self.users, self.tills)
        let (user, state) = try await database.read { sql in
            (try await users.find(id, in: sql), try await tills.pin(of: id, in: sql))
        }
        let now = Date.nowMilliseconds
        if let until = state?.lockedUntil, until > now {
            throw OrderlyError(
                .rateLimited, "too many wrong PINs; try again in \((until - now + 999) / 1000) seconds",
                details: ["retry_after_seconds": .int(max(1, (until - now + 999) / 1000))])
        }
        guard let user, user.active, user.role.isStoreRole, user.storeID == till.storeID,
            let hash = state?.hash
        else {
            _ = try await passwords.verify(pin, against: passwords.decoy)
            throw refused
        }
        guard try await passwords.verify(pin, against: hash) else {
            let locked = try await database.transaction { try await tills.wrongPIN(of: id, at: now, in: $0) }
            if locked != nil {
                throw OrderlyError(
                    .rateLimited, "too many wrong PINs; try again in \(Int(Till.lockout)) seconds",
                    details: ["retry_after_seconds": .int(Int64(Till.lockout))])
            }
            throw refused
        }
        let (refreshTokens, tokens, lifetime) = (self.refreshTokens, self.tokens, sessionLifetime)
        // The user's list of sessions names the till.
        let session = {
            var session = client
            session.device = "Till: \(till.name)"
            return session
        }()
        return try await database.transaction { transaction in
            // Revoked meanwhile, the till opens no session.
            try await transaction.lock(.till(till.id))
            guard try await tills.find(till.id, in: transaction.sql)?.revokedAt == nil else { throw refused }
            try await tills.rightPIN(of: id, in: transaction)
            guard let version = try await users.tokenVersion(of: id, in: transaction.sql) else { throw refused }
            let pair = try await tokens.issue(
                for: user, tokenVersion: version, client: session,
                till: till.id, refreshUntil: Date.nowMilliseconds + Int64(lifetime.wholeMilliseconds))
            try await refreshTokens.insert(pair.refresh, in: transaction)
            return pair.tokens
        }
    }
}
