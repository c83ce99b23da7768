import Contracts
import Domain
import Foundation
import SQLKit
import Storage

/// The gateway's SQL of applications to join the platform: each kept whole as JSON, the hash of
/// the password the applicant chose beside it.
struct ApplicationsRepository: Sendable {
    let database: Database

    func insert(_ application: JoinApplication, passwordHash: String, in transaction: Transaction) async throws {
        try await transaction.sql.raw(
            """
            INSERT INTO applications (id, email, status, password_hash, created_at, doc)
            VALUES (\(bind: application.id.description), \(bind: application.email),
                \(bind: application.status.rawValue), \(bind: passwordHash),
                \(bind: application.createdAt.millisecondsSince1970), \(bind: try StoredDocument.text(application)))
            """
        ).run()
    }

    /// Writes a decided application; callers hold its lock (`gateway.application:<id>`).
    func update(_ application: JoinApplication, in transaction: Transaction) async throws {
        try await transaction.sql.raw(
            """
            UPDATE applications SET status = \(bind: application.status.rawValue),
                doc = \(bind: try StoredDocument.text(application))
            WHERE id = \(bind: application.id.description)
            """
        ).run()
    }

    /// The application and the hash of its password.
    func find(_ id: ApplicationID, in sql: any SQLDatabase) async throws -> (JoinApplication, passwordHash: String)? {
        try await sql.raw("SELECT doc, password_hash FROM applications WHERE id = \(bind: id.description)").first()
            .map(Self.withHash)
    }

    /// The latest application made with `email` that is pending or was rejected, with the hash
    /// of its password: what a sign-in with that address before approval is answered from.
    func undecidedOrRejected(email: String) async throws -> (JoinApplication, passwordHash: String)? {
        try await database.read { sql in
            try await sql.raw(
                """
                SELECT doc, password_hash FROM applications WHERE email = \(bind: email)
                AND status IN ('pending', 'rejected') ORDER BY created_at DESC, id DESC LIMIT 1
                """
            ).first().map(Self.withHash)
        }
    }

    /// An application read with the hash of its password.
    private static func withHash(_ row: any SQLRow) throws -> (JoinApplication, passwordHash: String) {
        (
            try StoredDocument.decode(JoinApplication.self, from: row),
            try row.decode(column: "password_hash", as: String.self)
        )
    }

    /// Whether a pending application was made with `email`.
    func isPending(email: String, in sql: any SQLDatabase) async throws -> Bool {
        try await sql.raw(
            "SELECT id FROM applications WHERE email = \(bind: email) AND status = 'pending' LIMIT 1"
        ).first() != nil
    }

    /// A page of the applications, oldest first, in `status` when given.
    func list(status: JoinApplication.Status?, after cursor: KeysetCursor?, limit: Int, counting: Bool) async throws
        -> Page<JoinApplication>
    {
        try await database.read { sql in
            var source: SQLQueryString = "applications WHERE 1 = 1"
            if let status { source = source + " AND status = \(bind: status.rawValue)" }
            let page = try await KeysetCursor.list(
                JoinApplication.self, from: source, after: cursor, limit: limit, counting: counting, in: sql)
            return Page(data: page.items, nextCursor: page.next, total: page.total)
        }
    }
}
