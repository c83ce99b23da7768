import Contracts
import Domain
import Foundation
import Logging
import Runtime
import Storage
import Wire

/// The gateway's own methods of users, the identity it owns. Each validates its request, asks
/// `AccessPolicy`, calls the repository and publishes `user.created` or `user.updated` through
/// the outbox, for the services that keep a copy. The routes call them.
struct UsersHandlers: Sendable {
    let database: Database
    let users: UsersRepository
    let passwords: PasswordHasher
    /// Counts password changes, and checks of a current password as login attempts.
    let limiter: LoginLimiter
    let passwordChangesPerHour: Int
    let catalog: any WireCaller
    let idempotency: IdempotencyStore
    let sessions: Sessions
    /// The bootstrap admin's address, which nobody signs up with (`UserBook.bootstrapAdmin`).
    let bootstrapEmail: String
    /// Mails a sign-up the link that verifies its address.
    let verifications: EmailVerificationHandlers

    var book: UserBook { UserBook(database: database) }

    func me(_ principal: Principal) async throws -> User {
        guard let user = try await database.read({ try await users.find(principal.userID, in: $0) }) else {
            throw OrderlyError(.invalidToken, "the account no longer exists")
        }
        return user
    }

    /// Whether `id` is a customer's account, which a store's customer record may be linked to.
    func isCustomerAccount(_ id: UserID) async throws -> Bool { try await role(of: id) == .customer }

    /// The role of the account `id`, nil when there is none: what the gateway tells the other
    /// services of an account they are named.
    func role(of id: UserID) async throws -> Role? {
        try await database.read { try await users.find(id, in: $0) }?.role
    }

    /// A customer signing themselves up: the rules of any new user's fields, the role always
    /// `customer`. An address already taken is 409 `already_exists` naming `email`, and so is one
    /// a pending application to join waits on (its approval would find it taken) or the bootstrap
    /// admin's: taken under the address's lock, which applying takes too. The account is mailed
    /// the link that verifies its address.
    func signUp(_ request: SignUpRequest) async throws -> User {
        let valid = try request.validated()
        let hash = try await passwords.hash(valid.password)
        let now = Date.currentMillisecond
        let user = User(
            id: UserID(), email: valid.email, name: valid.name, phone: valid.phone, role: .customer, storeID: nil,
            staffRole: nil, active: true, onDuty: false, locale: valid.locale, version: 1, createdAt: now,
            updatedAt: now)
        let (book, applications, reserved) = (self.book, ApplicationsRepository(database: database), bootstrapEmail)
        let (email, verifications) = (valid.email, self.verifications)
        let made = try await database.transaction { transaction in
            try await transaction.lock(.email(email))
            let pending = try await applications.isPending(email: email, in: transaction.sql)
            if email == reserved || pending {
                throw OrderlyError(
                    .alreadyExists, "an account or an application uses this e-mail address",
                    details: ["email": .string("is taken")])
            }
            try await book.open(user, passwordHash: hash, takenReason: .alreadyExists, in: transaction)
            try await verifications.send(
                for: .user(user.id), to: MailTexts.Recipient(email: email, name: user.name, locale: user.locale),
                in: transaction)
            return user
        }
        verifications.mailed()
        return made
    }

    /// Admins create anyone; owners create managers and staff of their store, managers staff.
    func create(_ draft: UserDraft, by principal: Principal, idempotencyKey: String?) async throws -> User {
        var store = draft.storeID
        if principal.role != .admin, let role = draft.role {
            // A store user creates users in their own store; naming another is as if it did not
            // exist. Decided before the fields are checked, as a stranger's answer is the refusal.
            let own = role.isStoreRole ? principal.storeID : nil
            guard AccessPolicy(principal).canCreate(role, in: own) else {
                throw OrderlyError(
                    .permissionDenied,
                    "\(ErrorTexts.withArticle(principal.role.rawValue)) cannot create \(ErrorTexts.withArticle(role.rawValue))"
                )
            }
            if let store, store != principal.storeID { throw OrderlyError(.notFound, "no store \(store)") }
            store = own
        }
        let valid = try draft.validated()
        if let store, principal.role == .admin { try await requireStore(store, principal: principal) }
        // A profile for the tills alone gets a password nobody knows, so that every account is
        // signed into the same way, and no address or password ever opens this one.
        let hash = try await passwords.hash(valid.password ?? TokenIssuer.randomToken())
        let now = Date.currentMillisecond
        var user = User(
            id: UserID(), email: valid.email, name: valid.name, phone: valid.phone, role: valid.role, storeID: store,
            staffRole: valid.staffRole, active: true, onDuty: false, locale: valid.locale, version: 1, createdAt: now,
            updatedAt: now)
        user.photoURL = valid.photoURL
        var withoutPassword = draft
        withoutPassword.password = nil
        let hashed = HashedUserDraft(
            draft: withoutPassword, passwordDigest: valid.password.map(TokenIssuer.hash) ?? "")
        let (book, created) = (self.book, user)
        return try await idempotency.write(
            key: idempotencyKey, caller: principal.userID, scope: "users.create", request: hashed
        ) {
            transaction in
            try await book.open(created, passwordHash: hash, takenReason: .emailTaken, in: transaction)
            return created
        }
    }

    /// The users of `store` for its clock-in screen: admins and the store's users; anyone else 404.
    func colleagues(of store: StoreID, page: PageRequest, by principal: Principal) async throws -> Page<User> {
        guard AccessPolicy(principal).canListColleagues(in: store) else {
            throw OrderlyError(.notFound, "no store \(store)")
        }
        let cursor = try page.cursor.map { cursor throws(OrderlyError) in try KeysetCursor(token: cursor) }
        return try await users.list(
            .only(store), role: nil, after: cursor, limit: try KeysetCursor.limit(page.limit), counting: page.counting)
    }

    func list(store: StoreID?, role: Role?, page: PageRequest, by principal: Principal) async throws -> Page<User> {
        let limit = try KeysetCursor.limit(page.limit)
        let cursor = try page.cursor.map { cursor throws(OrderlyError) in try KeysetCursor(token: cursor) }
        let visible = try AccessPolicy(principal).visibleUsers(store: store, role: role)
        return try await users.list(
            visible.stores, role: visible.role, after: cursor, limit: limit, counting: page.counting)
    }

    func get(_ id: UserID, by principal: Principal) async throws -> User {
        guard let user = try await database.read({ try await users.find(id, in: $0) }),
            AccessPolicy(principal).canSee(user: user)
        else {
            throw OrderlyError(.notFound, "no user \(id)")
        }
        return user
    }

    /// Admins change anything; owners and managers their store's staff (owners also managers);
    /// everyone their own name, phone, locale and password, their own password only with the current
    /// one. A new password, a deactivation or a new role ends every session of the user: their
    /// refresh tokens are revoked and their access tokens stop working (`Sessions`).
    ///
    /// Who may change what is decided from the user as read before any password is hashed or
    /// checked (each costs a bcrypt run), and again in the transaction that writes. A password change counts against the user's hourly
    /// limit; checking one's current password counts as a login attempt of the account, from
    /// `address`.
    func update(
        _ id: UserID, _ patch: UserPatch, expectedVersion: Int64?, by principal: Principal, address: IPAddress?
    ) async throws -> User {
        let valid = try patch.validated(ownAccount: id == principal.userID)
        let policy = AccessPolicy(principal)
        guard let current = try await database.read({ try await self.users.find(id, in: $0) }) else {
            throw OrderlyError(.notFound, "no user \(id)")
        }
        try Self.authorize(valid, of: current, by: policy)
        if valid.password != nil {
            try await limiter.admitPasswordChange(of: id, perHour: passwordChangesPerHour)
        }
        if valid.password != nil, id == principal.userID, let given = valid.currentPassword {
            try await limiter.admit(email: UsersRepository.emailColumn(current), address: address)
            let stored = try await database.read { try await self.users.passwordHash(of: id, in: $0) }
            guard try await passwords.verify(given, against: stored ?? passwords.decoy), stored != nil else {
                throw OrderlyError.invalidFields(["current_password": "is not your current password"])
            }
        }
        var newHash: String?
        if let password = valid.password { newHash = try await passwords.hash(password) }
        let hash = newHash
        let (users, book) = (self.users, self.book)
        let (updated, ended) = try await database.transaction { transaction in
            guard let before = try await users.find(id, in: transaction.sql) else {
                throw OrderlyError(.notFound, "no user \(id)")
            }
            if let expectedVersion, expectedVersion != before.version {
                throw OrderlyError.versionConflict(current: before)
            }
            try Self.authorize(valid, of: before, by: policy)
            let user = valid.applied(to: before)
            let endsSessions = hash != nil || (before.active && !user.active) || before.role != user.role
            let saved = try await book.save(user, passwordHash: hash, in: transaction)
            if endsSessions { try await users.endSessions(of: id, in: transaction) }
            return (saved, endsSessions)
        }
        if ended { await sessions.ended(id) }
        return updated
    }

    /// Signs the caller out everywhere: every refresh token of theirs is revoked, and every
    /// access token refused from its next request on every gateway (an open event stream or
    /// long-poll included), this one's too.
    func endSessions(of principal: Principal) async throws {
        let users = self.users
        try await database.transaction { try await users.endSessions(of: principal.userID, in: $0) }
        await sessions.ended(principal.userID)
    }

    /// A courier going on or off duty.
    func setAvailability(_ request: AvailabilityRequest, by principal: Principal) async throws -> User {
        guard AccessPolicy(principal).canGoOnDuty else {
            throw OrderlyError(.permissionDenied, "only couriers go on duty")
        }
        let onDuty = try request.validated()
        let (users, book) = (self.users, self.book)
        return try await database.transaction { transaction in
            guard var user = try await users.find(principal.userID, in: transaction.sql) else {
                throw OrderlyError(.notFound, "no user \(principal.userID)")
            }
            guard user.onDuty != onDuty else { return user }
            user.onDuty = onDuty
            return try await book.save(user, passwordHash: nil, in: transaction)
        }
    }

    /// Refuses a change `policy`'s caller may not make to `user`: `not_found` for a user they may
    /// not see, `permission_denied` for what they may not change, 400 for a role across the line
    /// between store and platform roles.
    private static func authorize(_ patch: ValidUserPatch, of user: User, by policy: AccessPolicy) throws(OrderlyError)
    {
        guard policy.canSee(user: user) else { throw OrderlyError(.notFound, "no user \(user.id)") }
        if patch.active != nil || patch.staffRole != nil, !policy.canManage(user) {
            throw OrderlyError(.permissionDenied, "only the user's managers change staff role or status")
        }
        guard policy.canEditProfile(of: user) else {
            throw OrderlyError(.permissionDenied, "you cannot change this user")
        }
        if let role = patch.role {
            guard policy.canChangeRole(of: user) else {
                throw OrderlyError(.permissionDenied, "only admins change roles")
            }
            guard role.isStoreRole == user.role.isStoreRole else {
                throw OrderlyError.invalidFields(["role": "cannot move between store and platform roles"])
            }
        }
    }

    func requireStore(_ store: StoreID, principal: Principal) async throws {
        do {
            _ = try await catalog.call(
                CatalogAPI.getStore, ResourceRef(id: store), options: WireCallOptions(principal: principal))
        } catch let error as OrderlyError where error.code == .notFound {
            throw OrderlyError(.notFound, "no store \(store)")
        }
    }
}

/// What an idempotency record of a user's creation hashes: the draft with a digest in place of
/// the password.
struct HashedUserDraft: Encodable, Sendable {
    var draft: UserDraft
    var passwordDigest: String
}
