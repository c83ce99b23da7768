import Contracts
import Domain
import Foundation
import SQLKit
import Storage

/// The catalog's SQL of reservations, and of how far each order's and payment's holds were
/// brought in line with it.
struct ReservationsRepository: Sendable {
    let database: Database

    func insert(_ reservation: Reservation, in transaction: Transaction) async throws {
        try await transaction.sql.raw(
            """
            INSERT INTO reservations (id, store_id, order_id, status, expires_at, created_at, doc)
            VALUES (\(bind: reservation.id.description), \(bind: reservation.storeID.description),
                \(bind: reservation.orderID?.description), \(bind: reservation.status.rawValue),
                \(bind: reservation.expiresAt?.millisecondsSince1970),
                \(bind: reservation.createdAt.millisecondsSince1970), \(bind: try StoredDocument.text(reservation)))
            """
        ).run()
    }

    /// Writes a reservation's new status, lines and expiry. Callers hold its lock.
    func update(_ reservation: Reservation, in transaction: Transaction) async throws {
        try await transaction.sql.raw(
            """
            UPDATE reservations SET status = \(bind: reservation.status.rawValue),
                expires_at = \(bind: reservation.expiresAt?.millisecondsSince1970),
                doc = \(bind: try StoredDocument.text(reservation))
            WHERE id = \(bind: reservation.id.description)
            """
        ).run()
    }

    func find(_ id: ReservationID, in sql: any SQLDatabase) async throws -> Reservation? {
        try await sql.raw("SELECT doc FROM reservations WHERE id = \(bind: id.description)").first()
            .map { try StoredDocument.decode(Reservation.self, from: $0) }
    }

    /// The reservations made for `order`'s lines, oldest first.
    func reservations(of order: OrderID, in sql: any SQLDatabase) async throws -> [Reservation] {
        try await sql.raw(
            "SELECT doc FROM reservations WHERE order_id = \(bind: order.description) ORDER BY created_at, id"
        ).all().map { try StoredDocument.decode(Reservation.self, from: $0) }
    }

    /// Whether any reservation was made for `order`'s lines.
    func hasReservations(of order: OrderID, in sql: any SQLDatabase) async throws -> Bool {
        try await sql.raw("SELECT id FROM reservations WHERE order_id = \(bind: order.description) LIMIT 1").first()
            != nil
    }

    /// The version of the order or payment its reservations were last brought in line with; 0
    /// before the first.
    func holdsVersion(of holder: Holder, in sql: any SQLDatabase) async throws -> Int64 {
        try await sql.raw(
            "SELECT version FROM " + holder.table + " WHERE " + holder.column + " = \(bind: holder.id)"
        ).first()?.decode(column: "version", as: Int64.self) ?? 0
    }

    func setHoldsVersion(_ version: Int64, of holder: Holder, in transaction: Transaction) async throws {
        try await transaction.sql.raw(
            "INSERT INTO " + holder.table + " (" + holder.column
                + ", version) VALUES (\(bind: holder.id), \(bind: version))"
                + " ON CONFLICT (" + holder.column + ") DO UPDATE SET version = excluded.version"
        ).run()
    }

    /// What stock is held for: an order's lines, or a payment's items.
    enum Holder {
        case order(OrderID)
        case payment(PaymentID)

        var table: SQLQueryString {
            switch self {
            case .order: "order_holds"
            case .payment: "payment_holds"
            }
        }

        var column: SQLQueryString {
            switch self {
            case .order: "order_id"
            case .payment: "payment_id"
            }
        }

        var id: String {
            switch self {
            case .order(let id): id.description
            case .payment(let id): id.description
            }
        }
    }

    /// Held reservations whose time ran out by `now`, the longest overdue first.
    func due(at now: Date, limit: Int) async throws -> [ReservationID] {
        try await database.read { sql in
            try await sql.raw(
                """
                SELECT id FROM reservations WHERE status = 'held' AND expires_at <= \(bind: now.millisecondsSince1970)
                ORDER BY expires_at LIMIT \(bind: limit)
                """
            ).all().map { row in
                guard let id = ReservationID(try row.decode(column: "id", as: String.self)) else {
                    throw StorageError.unexpected("a reservation's id could not be read")
                }
                return id
            }
        }
    }
}
