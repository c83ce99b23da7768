internal import Contracts
internal import Domain
internal import Foundation
internal import SQLKit
internal import Storage

/// Users in the gateway's database. The password hash stays here: it is in no `User` value,
/// no response and no event.
struct UserRepository: Sendable {
    let database: Database

    func insert(_ user: User, passwordHash: String, in transaction: Transaction) async throws {
        try await transaction.sql.raw(
            """
            INSERT INTO users (id, email, password_hash, role, store_id, version, created_at, doc)
            VALUES (\(bind: user.id.description), \(bind: user.email), \(bind: passwordHash), \(bind: user.role.rawValue),
                \(bind: user.storeID?.description), \(bind: user.version), \(bind: user.createdAt.millisecondsSince1970),
                \(bind: try StoredDocument.text(user)))
            """
        ).run()
    }

    /// Replaces a user read at `previousVersion`; false when someone changed it meanwhile.
    func update(_ user: User, previousVersion: Int64, passwordHash: String?, in transaction: Transaction) async throws
        -> Bool
    {
        var query: SQLQueryString = """
            UPDATE users SET role = \(bind: user.role.rawValue), store_id = \(bind: user.storeID?.description),
                version = \(bind: user.version), doc = \(bind: try StoredDocument.text(user))
            """
        if let passwordHash { query = query + ", password_hash = \(bind: passwordHash)" }
        query = query + " WHERE id = \(bind: user.id.description) AND version = \(bind: previousVersion) RETURNING id"
        return try await transaction.sql.raw(query).first() != nil
    }

    func find(_ id: UserID, in sql: any SQLDatabase) async throws -> User? {
        try await sql.raw("SELECT doc FROM users WHERE id = \(bind: id.description)").first()
            .map { try StoredDocument.decode(User.self, from: $0) }
    }

    /// The user with this e-mail address and their password hash.
    func find(email: String) async throws -> (user: User, passwordHash: String)? {
        try await database.read { sql in
            guard
                let row = try await sql.raw("SELECT doc, password_hash FROM users WHERE email = \(bind: email)").first()
            else { return nil }
            return (
                try StoredDocument.decode(User.self, from: row),
                try row.decode(column: "password_hash", as: String.self)
            )
        }
    }

    func count() async throws -> Int {
        try await database.read { sql in
            try await sql.raw("SELECT COUNT(*) AS n FROM users").first()?.decode(column: "n", as: Int.self) ?? 0
        }
    }

    /// Users in creation order: one store's, or everyone's.
    func list(store: StoreID?, role: Role?, after cursor: KeysetCursor?, limit: Int) async throws -> Page<User> {
        try await database.read { sql in
            var query: SQLQueryString = "SELECT doc, created_at, id FROM users WHERE 1 = 1"
            if let store { query = query + " AND store_id = \(bind: store.description)" }
            if let role { query = query + " AND role = \(bind: role.rawValue)" }
            let rows = try await sql.raw(query + KeysetCursor.pageClause(after: cursor, limit: limit)).all()
            let page = try KeysetCursor.page(rows, limit: limit, as: User.self)
            return Page(data: page.items, nextCursor: page.next)
        }
    }
}
