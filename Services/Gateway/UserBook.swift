import Domain
import Foundation
import Storage

/// The one place the gateway writes a user, in the caller's transaction: a new account stored
/// under its address's lock, a changed one as its next version, each announced through the outbox
/// (`user.created`, `user.updated`) for the services that keep a copy. The handlers, approved
/// applications, the bootstrap admin at start and the operator's password reset write through it.
struct UserBook: Sendable {
    let database: Database

    var users: UsersRepository { UsersRepository(database: database) }

    /// Stores a new user and publishes `user.created`, unless their e-mail address is taken:
    /// then 409 with `reason` (`email_taken` for a user made by another, as ever;
    /// `already_exists` for a sign-up, as its contract names it), naming `email`. The address
    /// is checked and taken under its lock, so two requests for one cannot both pass the check.
    /// A staff member without an address takes none.
    func open(_ user: User, passwordHash: String, takenReason reason: ErrorReason, in transaction: Transaction)
        async throws
    {
        if let email = user.email {
            try await transaction.lock(.email(email))
            if try await users.isTaken(email: email, in: transaction.sql) {
                throw OrderlyError(
                    .conflict, "a user with this e-mail address exists", reason: reason,
                    details: ["email": .string("is taken")])
            }
        }
        try await users.insert(user, passwordHash: passwordHash, in: transaction)
        transaction.publish(try GatewayEvents.userCreated(user))
    }

    /// Stores a changed user as the next version and announces it with `user.updated`.
    func save(_ changed: User, passwordHash: String?, in transaction: Transaction) async throws -> User {
        var user = changed
        let previous = user.version
        user.version += 1
        user.updatedAt = Date.currentMillisecond
        guard try await users.update(user, previousVersion: previous, passwordHash: passwordHash, in: transaction)
        else {
            throw OrderlyError(.versionConflict, "the user changed meanwhile; retry")
        }
        transaction.publish(try GatewayEvents.userUpdated(user))
        return user
    }

    /// What became of the bootstrap admin at start.
    enum Bootstrap: Equatable {
        /// An admin's account is active already.
        case notNeeded
        case created
        /// The bootstrap address's admin account, deactivated, is active again with the password.
        case reactivated
        /// No admin is active, and there is no password to make one with.
        case waitingForPassword
        /// No admin is active, and the bootstrap address is another role's account.
        case addressTaken(Role)
    }

    /// Makes the bootstrap admin (`ORDERLY_BOOTSTRAP_ADMIN_*`) whenever no admin's account is
    /// active, so that the platform always has a way back in: a new admin with `email` and
    /// `password`, or that address's admin account active again with it. An address that is
    /// another role's is left alone (sign-ups refuse the bootstrap address, so only an account an
    /// admin made can hold it). Replicas starting together make one admin: the check and the
    /// write are one transaction under a lock.
    func bootstrapAdmin(email: String, password: String?, passwords: PasswordHasher) async throws -> Bootstrap {
        let users = self.users
        guard try await !database.read({ try await users.hasActiveAdmin(in: $0) }) else { return .notNeeded }
        guard let password else { return .waitingForPassword }
        let hash = try await passwords.hash(password)
        return try await database.transaction { transaction in
            try await transaction.lock(.email(email))
            guard try await !users.hasActiveAdmin(in: transaction.sql) else { return .notNeeded }
            let now = Date.currentMillisecond
            if var admin = try await users.find(email: email, in: transaction.sql) {
                guard admin.role == .admin else { return .addressTaken(admin.role) }
                admin.active = true
                do {
                    _ = try await save(admin, passwordHash: hash, in: transaction)
                } catch let error as OrderlyError where error.reason == .versionConflict {
                    throw OrderlyError(.unavailable, "the bootstrap admin changed meanwhile")
                }
                return .reactivated
            }
            let admin = User(
                id: UserID(), email: email, name: "Administrator", phone: nil, role: .admin, storeID: nil,
                staffRole: nil, active: true, onDuty: false, version: 1, createdAt: now, updatedAt: now)
            try await users.insert(admin, passwordHash: hash, in: transaction)
            transaction.publish(try GatewayEvents.userCreated(admin))
            return .created
        }
    }
}
