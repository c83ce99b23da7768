import Contracts
import Domain
import Foundation
import Logging
import Runtime
import Storage

/// Verified e-mail addresses: a sign-up and an application mail a link (and the same token as
/// text) good for 48 hours, in the transaction that makes them; following it marks the account
/// or the application `email_verified`. A signed-in user asks for the link again; an applicant,
/// who has no account yet, is mailed it again when a sign-in is refused for the pending
/// application. An application is approved only once its address is verified.
struct EmailVerificationHandlers: Sendable {
    static let tokenLifetime: Duration = .seconds(48 * 3600)

    let database: Database
    let verifications: EmailVerificationsRepository
    let users: UsersRepository
    let applications: ApplicationsRepository
    let limiter: LoginLimiter
    let mail: MailOutbox
    let texts: MailTexts
    let doorbell: Doorbell
    /// Where the links in messages lead: `ORDERLY_PUBLIC_URL`.
    let publicURL: String
    let perAccountPerHour: Int
    let logger: Logger

    /// Queues the link to `recipient`'s address for `subject`, in the transaction that makes
    /// or asks for it; `mailed()` after it commits wakes the sender.
    func send(for subject: VerificationSubject, to recipient: MailTexts.Recipient, in transaction: Transaction)
        async throws
    {
        let token = TokenIssuer.randomToken()
        try await verifications.insert(
            tokenHash: TokenIssuer.hash(token), subject: subject, email: recipient.email,
            lifetime: Self.tokenLifetime, in: transaction)
        try await mail.enqueue(
            texts.message(
                .emailVerification, to: recipient, link: "\(publicURL)/console/#/verify-email/\(token)", code: token),
            in: transaction)
    }

    /// Wakes the mail sender for what was queued.
    func mailed() { doorbell.ring() }

    /// Mails the caller's link again: 409 `already_verified` when there is nothing to verify
    /// (also for a staff member without an address), 429 past their hourly allowance.
    func resend(by principal: Principal) async throws {
        guard let user = try await database.read({ try await users.find(principal.userID, in: $0) }) else {
            throw OrderlyError(.invalidToken, "the account no longer exists")
        }
        guard !user.emailVerified else {
            throw OrderlyError(.alreadyVerified, "your e-mail address is verified already")
        }
        guard let recipient = MailTexts.Recipient(user) else {
            throw OrderlyError(.alreadyVerified, "your profile has no e-mail address to verify")
        }
        try await limiter.admitMail(
            .emailVerification, to: VerificationSubject.user(user.id).key, perHour: perAccountPerHour)
        try await database.transaction { transaction in
            try await send(for: .user(user.id), to: recipient, in: transaction)
        }
        mailed()
    }

    /// Mails an applicant the link again when `application` still waits for its address to be
    /// verified, within the hourly allowance; past it, or on a failure, nothing is mailed and the
    /// sign-in is answered as ever.
    func resend(to application: JoinApplication) async {
        let subject = VerificationSubject.application(application.id)
        guard application.status == .pending, !application.emailVerified,
            await limiter.allowsMail(.emailVerification, to: subject.key, perHour: perAccountPerHour)
        else { return }
        let recipient = MailTexts.Recipient(
            email: application.email, name: application.name, locale: application.locale)
        do {
            try await database.transaction { try await send(for: subject, to: recipient, in: $0) }
            mailed()
        } catch {
            logger.warning("verification link not mailed to an applicant", metadata: ["error": "\(error)"])
        }
    }

    /// Marks the address the token was mailed to as verified, for its account or application
    /// while the address is still theirs. A used, expired or unknown token is 400 naming `token`.
    func verify(_ request: EmailVerificationRequest) async throws {
        let tokenHash = TokenIssuer.hash(try request.validated())
        let refused = OrderlyError.invalidFields(["token": "is unknown, used or expired"])
        let (verifications, users, applications) = (self.verifications, self.users, self.applications)
        let book = UserBook(database: database)
        try await database.transaction { transaction in
            guard let (subject, email) = try await verifications.redeem(tokenHash, in: transaction) else {
                throw refused
            }
            switch subject {
            case .user(let id):
                guard var user = try await users.find(id, in: transaction.sql), user.email == email else {
                    throw refused
                }
                guard !user.emailVerified else { return }
                user.emailVerified = true
                _ = try await book.save(user, passwordHash: nil, in: transaction)
            case .application(let id):
                try await transaction.lock(.application(id))
                guard var (application, _) = try await applications.find(id, in: transaction.sql),
                    application.email == email
                else { throw refused }
                application.emailVerified = true
                try await applications.update(application, in: transaction)
            }
        }
    }
}
