import Domain
import Foundation
import Logging
import Redis
import Storage

/// The operator's way back in for an admin who cannot sign in (`orderly admin reset-password`).
extension UserBook {
    /// Sets the admin `email`'s password, ends their sessions everywhere and lifts the lock
    /// their failed sign-ins put on the account. Only an admin's: anyone else's password an
    /// admin changes through the API.
    func resetAdminPassword(
        email: String, password: String, redis: RedisClient, passwords: PasswordHasher, logger: Logger
    ) async throws -> User {
        let email = User.normalizedEmail(email.trimmingWhitespace())
        if let problem = User.passwordProblem(password) {
            throw OrderlyError.invalidFields(["password": problem])
        }
        let users = self.users
        guard let found = try await users.find(email: email)?.user else {
            throw OrderlyError(.notFound, "no user \(email)")
        }
        guard found.role == .admin else {
            throw OrderlyError(
                .failedPrecondition, "\(email) is not an admin; an admin changes their password through the API")
        }
        let hash = try await passwords.hash(password)
        let user = try await database.transaction { transaction in
            guard let user = try await users.find(found.id, in: transaction.sql) else {
                throw OrderlyError(.notFound, "no user \(email)")
            }
            let saved = try await save(user, passwordHash: hash, in: transaction)
            try await users.endSessions(of: user.id, in: transaction)
            return saved
        }
        await Sessions(users: users, redis: redis, logger: logger).ended(user.id)
        await LoginLimiter.unlock(email: email, redis: redis, logger: logger)
        return user
    }
}
