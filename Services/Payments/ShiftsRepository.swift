import Contracts
import Domain
import Foundation
import SQLKit
import Storage

/// The payments service's SQL of shifts, and of the store users it knows of (the staff roster)
/// to say who may clock whom.
struct ShiftsRepository: Sendable {
    let database: Database

    /// A user as the identity events tell, unless a newer version is known: kept while of a
    /// store role, forgotten otherwise.
    func remember(_ user: User, in transaction: Transaction) async throws {
        let known = try await transaction.sql.raw(
            "SELECT version FROM staff_members WHERE id = \(bind: user.id.description)"
        ).first()?.decode(column: "version", as: Int64.self)
        if let known, known >= user.version { return }
        try await transaction.sql.raw("DELETE FROM staff_members WHERE id = \(bind: user.id.description)").run()
        guard user.role.isStoreRole else { return }
        try await transaction.sql.raw(
            """
            INSERT INTO staff_members (id, store_id, role, name, active, version)
            VALUES (\(bind: user.id.description), \(bind: user.storeID?.description), \(bind: user.role.rawValue),
                \(bind: user.name), \(bind: user.active ? 1 : 0), \(bind: user.version))
            """
        ).run()
    }

    /// A store user the identity events told of: their role, store and name.
    func staffMember(_ id: UserID, in sql: any SQLDatabase) async throws -> StaffMember? {
        guard
            let row = try await sql.raw(
                "SELECT role, store_id, name, active FROM staff_members WHERE id = \(bind: id.description)"
            ).first(),
            let role = Role(rawValue: try row.decode(column: "role", as: String.self))
        else { return nil }
        return StaffMember(
            id: id, role: role, storeID: try row.decode(column: "store_id", as: String?.self).flatMap(StoreID.init),
            name: try row.decode(column: "name", as: String.self),
            active: try row.decode(column: "active", as: Int64.self) != 0)
    }

    func openShift(of user: UserID, in sql: any SQLDatabase) async throws -> Shift? {
        try await sql.raw(
            "SELECT doc FROM shifts WHERE user_id = \(bind: user.description) AND clocked_out_at IS NULL"
        ).first().map { try StoredDocument.decode(Shift.self, from: $0) }
    }

    func insert(_ shift: Shift, in transaction: Transaction) async throws {
        try await transaction.sql.raw(
            """
            INSERT INTO shifts (id, store_id, user_id, clocked_in_at, clocked_out_at, doc)
            VALUES (\(bind: shift.id.description), \(bind: shift.storeID.description), \(bind: shift.userID.description),
                \(bind: shift.clockedInAt.millisecondsSince1970), NULL, \(bind: try StoredDocument.text(shift)))
            """
        ).run()
    }

    func update(_ shift: Shift, in transaction: Transaction) async throws {
        try await transaction.sql.raw(
            """
            UPDATE shifts SET clocked_out_at = \(bind: shift.clockedOutAt?.millisecondsSince1970),
                doc = \(bind: try StoredDocument.text(shift))
            WHERE id = \(bind: shift.id.description)
            """
        ).run()
    }

    /// A page of a store's shifts, newest first.
    func shifts(_ request: ShiftListRequest, after cursor: KeysetCursor?, limit: Int) async throws -> Page<Shift> {
        try await database.read { sql in
            var source: SQLQueryString = "shifts WHERE store_id = \(bind: request.storeID.description)"
            if let user = request.userID { source = source + " AND user_id = \(bind: user.description)" }
            if let open = request.open {
                source = source + (open ? " AND clocked_out_at IS NULL" : " AND clocked_out_at IS NOT NULL")
            }
            let page = try await KeysetCursor.list(
                Shift.self, from: source, key: "clocked_in_at", descending: true, after: cursor, limit: limit,
                counting: request.page.counting, in: sql)
            return Page(data: page.items, nextCursor: page.next, total: page.total)
        }
    }

    /// The store's shifts clocked in to within `window`, oldest first.
    func shifts(of store: StoreID, clockedInWithin window: Range<Date>) async throws -> [Shift] {
        try await database.read { sql in
            try await sql.raw(
                """
                SELECT doc FROM shifts WHERE store_id = \(bind: store.description)
                AND clocked_in_at >= \(bind: window.lowerBound.millisecondsSince1970)
                AND clocked_in_at < \(bind: window.upperBound.millisecondsSince1970)
                ORDER BY clocked_in_at, id
                """
            ).all().map { try StoredDocument.decode(Shift.self, from: $0) }
        }
    }

    /// The open shifts of `users`.
    func openShifts(of users: [UserID]) async throws -> [Shift] {
        guard !users.isEmpty else { return [] }
        return try await database.read { sql in
            try await sql.raw(
                "SELECT doc FROM shifts WHERE clocked_out_at IS NULL AND user_id IN ("
                    + .boundList(Set(users.map(\.description))) + ")"
            ).all().map { try StoredDocument.decode(Shift.self, from: $0) }
        }
    }
}
