import Foundation
import SQLKit
import Synchronization

/// Runs the storage layer's own statements (idempotency records, the outbox, the inbox,
/// sequences): on SQLite straight on the connection, prepared once, without building and
/// serializing an SQLKit query and converting its binds on the writer's thread at every run; on
/// PostgreSQL through SQLKit.
///
/// One text serves both databases: placeholders are `$1`, `$2`, …, each first appearing in
/// increasing order (SQLite numbers `$N` parameters as they first appear; PostgreSQL by N).
extension Transaction {
    @discardableResult
    func execute(_ text: String, _ binds: [SQLiteValue]) async throws -> [any SQLRow] {
        if let connection {
            let result = try await connection.run { try $0.query(text, binds) }
            return result.rows.map { EmbeddedSQLiteRow(columns: result.columns, indexes: result.indexes, values: $0) }
        }
        let rows = Mutex<[any SQLRow]>([])
        try await sql.execute(sql: PlaceholderSQL(text: text, binds: binds)) { row in rows.withLock { $0.append(row) } }
        return rows.withLock { $0 }
    }
}

/// Statement text with its own `$N` placeholders and the values for them, for SQLKit.
private struct PlaceholderSQL: SQLExpression {
    let text: String
    let binds: [SQLiteValue]

    func serialize(to serializer: inout SQLSerializer) {
        serializer.write(text)
        serializer.binds += binds.map(\.bindable)
    }
}
