import Domain
import Foundation
import SQLKit
import Storage

/// Whose address a verification link shows to be theirs: an account's, or an application's
/// before there is an account.
enum VerificationSubject: Hashable, Sendable {
    case user(UserID)
    case application(ApplicationID)

    /// How it is stored and counted: `user:<id>` or `application:<id>`.
    var key: String {
        switch self {
        case .user(let id): "user:\(id)"
        case .application(let id): "application:\(id)"
        }
    }

    init?(key: String) {
        let (kind, id) = (key.prefix { $0 != ":" }, key.drop { $0 != ":" }.dropFirst())
        switch kind {
        case "user": guard let id = UserID(String(id)) else { return nil }; self = .user(id)
        case "application": guard let id = ApplicationID(String(id)) else { return nil }; self = .application(id)
        default: return nil
        }
    }
}

/// The gateway's SQL of e-mail verification tokens: stored hashed with the address they were
/// mailed to, each used once and good for 48 hours; using one voids its subject's others.
struct EmailVerificationsRepository: Sendable {
    let database: Database

    func insert(
        tokenHash: String, subject: VerificationSubject, email: String, lifetime: Duration, in transaction: Transaction
    ) async throws {
        let now = Date.nowMilliseconds
        try await transaction.sql.raw(
            """
            INSERT INTO email_verifications (token_hash, subject, email, created_at, expires_at)
            VALUES (\(bind: tokenHash), \(bind: subject.key), \(bind: email), \(bind: now),
                \(bind: now + Int64(lifetime.wholeMilliseconds)))
            """
        ).run()
    }

    /// Spends the token with this hash and every other of its subject, atomically: of two
    /// requests presenting one token, one gets its subject and address and the other nil.
    func redeem(_ tokenHash: String, in transaction: Transaction) async throws -> (
        subject: VerificationSubject, email: String
    )? {
        let now = Date.nowMilliseconds
        guard
            let row = try await transaction.sql.raw(
                """
                UPDATE email_verifications SET used_at = \(bind: now)
                WHERE token_hash = \(bind: tokenHash) AND used_at IS NULL AND expires_at > \(bind: now)
                RETURNING subject, email
                """
            ).first(),
            let subject = VerificationSubject(key: try row.decode(column: "subject", as: String.self))
        else { return nil }
        try await transaction.sql.raw(
            "UPDATE email_verifications SET used_at = \(bind: now) WHERE subject = \(bind: subject.key) AND used_at IS NULL"
        ).run()
        return (subject, try row.decode(column: "email", as: String.self))
    }

    /// Deletes tokens expired more than a day ago; returns how many.
    func removeExpired() async throws -> Int {
        try await database.deleteRows(of: "email_verifications", where: "expires_at", olderThan: .seconds(86_400))
    }
}
