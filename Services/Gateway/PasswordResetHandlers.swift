import Contracts
import Domain
import Foundation
import Logging
import Runtime
import Storage

/// A forgotten password, reset by e-mail: a request mails a single-use link (and the same token
/// as text) good for 30 minutes; its confirmation sets the new password and ends every session
/// of the user. A request answers the same whether or not the address has an account.
struct PasswordResetHandlers: Sendable {
    static let tokenLifetime: Duration = .seconds(30 * 60)

    let database: Database
    let users: UsersRepository
    let resets: PasswordResetsRepository
    let passwords: PasswordHasher
    let limiter: LoginLimiter
    let sessions: Sessions
    let mail: MailOutbox
    let texts: MailTexts
    let doorbell: Doorbell
    /// Where the links in messages lead: `ORDERLY_PUBLIC_URL`.
    let publicURL: String
    let perAccountPerHour: Int
    let perAddressPerHour: Int
    let logger: Logger

    /// Mails a reset link to `request`'s address when it has an active account. Requests from
    /// `address` count against its hourly allowance (429 past it, whatever the address asked
    /// for); past an account's allowance nothing more is mailed to it, and the answer is the
    /// same, so that nobody can flood someone's mailbox or learn anything from the answer.
    func request(_ request: PasswordResetRequest, address: IPAddress?) async throws {
        let email = try request.validated()
        try await limiter.admitPasswordResetRequest(address: address, perHour: perAddressPerHour)
        guard let user = try await users.find(email: email)?.user, user.active,
            let recipient = MailTexts.Recipient(user)
        else { return }
        guard await limiter.allowsMail(.passwordReset, to: user.id.description, perHour: perAccountPerHour) else {
            logger.notice("password reset not mailed: the account's hourly allowance is spent")
            return
        }
        let token = TokenIssuer.randomToken()
        let message = texts.message(
            .passwordReset, to: recipient, link: "\(publicURL)/console/#/reset-password/\(token)",
            code: token)
        let (resets, mail) = (self.resets, self.mail)
        try await database.transaction { transaction in
            try await resets.insert(
                tokenHash: TokenIssuer.hash(token), user: user.id, lifetime: Self.tokenLifetime, in: transaction)
            try await mail.enqueue(message, in: transaction)
        }
        doorbell.ring()
    }

    /// Sets the password of the token's user, spends the token (and the user's others), ends
    /// every session of the user and lifts the lock failed sign-ins put on the account. A used,
    /// expired or unknown token is 400 naming `token`; it is looked up before the password is
    /// hashed, so that a made-up token costs no bcrypt run.
    func confirm(_ confirmation: PasswordResetConfirmation) async throws {
        let (token, password) = try confirmation.validated()
        let tokenHash = TokenIssuer.hash(token)
        let refused = OrderlyError.invalidFields(["token": "is unknown, used or expired"])
        guard try await resets.pending(tokenHash) != nil else { throw refused }
        let hash = try await passwords.hash(password)
        let (resets, users) = (self.resets, self.users)
        let user = try await database.transaction { transaction in
            guard let id = try await resets.redeem(tokenHash, in: transaction),
                let user = try await users.find(id, in: transaction.sql), user.active
            else { throw refused }
            let saved = try await UserBook(database: database).save(user, passwordHash: hash, in: transaction)
            try await users.endSessions(of: id, in: transaction)
            return saved
        }
        await sessions.ended(user.id)
        if let email = user.email { await LoginLimiter.unlock(email: email, redis: limiter.redis, logger: logger) }
    }
}
