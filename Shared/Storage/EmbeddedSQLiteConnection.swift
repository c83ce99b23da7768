import CSQLite
import Foundation
import Logging
import NIOCore
import NIOPosix
import SQLKit

/// One SQLite connection, on a thread of its own (the system's libsqlite3, through its C API).
///
/// Statements are prepared once and kept. Everything touching the handle runs on `thread`:
/// callers already there (a transaction's code) run inline, others hop over and back.
final class EmbeddedSQLiteConnection: @unchecked Sendable {
    let thread: SQLiteThread
    private var handle: OpaquePointer?
    private var statements: [String: Prepared] = [:]

    /// A prepared statement and its result columns, named once rather than at every run.
    private struct Prepared {
        let statement: OpaquePointer
        let columns: [String]
        let indexes: [String: Int]
    }

    private init(thread: SQLiteThread) { self.thread = thread }

    static func open(path: String, name: String) async throws -> EmbeddedSQLiteConnection {
        // SQLite's process-wide settings, applied (once) before the first open.
        _ = orderly_sqlite3_configure()
        let connection = EmbeddedSQLiteConnection(thread: SQLiteThread(name: name))
        try await connection.run { connection in
            var handle: OpaquePointer?
            let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
            let status = sqlite3_open_v2(path, &handle, flags, nil)
            guard status == SQLITE_OK, let handle else {
                let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open"
                sqlite3_close_v2(handle)
                throw SQLiteFailure(code: status, message: "\(path): \(message)")
            }
            connection.handle = handle
        }
        return connection
    }

    /// Runs `body` on the connection's thread.
    func run<T: Sendable>(_ body: @Sendable (EmbeddedSQLiteConnection) throws -> T) async throws -> T {
        if thread.isCurrent { return try body(self) }
        return try await withTaskExecutorPreference(thread) {
            guard thread.isCurrent else {
                throw SQLiteFailure(code: SQLITE_MISUSE, message: "not on the SQLite thread")
            }
            return try body(self)
        }
    }

    /// Runs one statement; call on the connection's thread.
    func query(_ sql: String, _ binds: [SQLiteValue]) throws -> SQLiteResult {
        guard let handle else { throw SQLiteFailure(code: SQLITE_MISUSE, message: "the connection is closed") }
        let prepared = try self.prepared(sql, on: handle)
        let statement = prepared.statement
        defer {
            sqlite3_reset(statement)
            sqlite3_clear_bindings(statement)
        }
        for (index, value) in binds.enumerated() {
            let position = Int32(index + 1)
            let status: Int32
            switch value {
            case .integer(let number): status = sqlite3_bind_int64(statement, position, number)
            case .real(let number): status = sqlite3_bind_double(statement, position, number)
            case .text(let text):
                // With its length, so that text holding a NUL is stored whole.
                let length = Int32(text.utf8.count)
                status = text.withCString { sqlite3_bind_text(statement, position, $0, length, Self.transient) }
            case .blob(let bytes):
                status = bytes.withUnsafeBytes {
                    sqlite3_bind_blob(statement, position, $0.baseAddress, Int32($0.count), Self.transient)
                }
            case .null: status = sqlite3_bind_null(statement, position)
            }
            guard status == SQLITE_OK else { throw failure(status, handle) }
        }
        let columnCount = sqlite3_column_count(statement)
        var result = SQLiteResult(columns: prepared.columns, indexes: prepared.indexes, rows: [])
        if columnCount != Int32(prepared.columns.count) {
            // Prepared again by SQLite after a schema change: name the columns afresh.
            (result.columns, result.indexes) = Self.names(of: statement)
        }
        while true {
            let status = sqlite3_step(statement)
            if status == SQLITE_DONE { return result }
            guard status == SQLITE_ROW else { throw failure(status, handle) }
            result.rows.append((0..<columnCount).map { column(statement, $0) })
        }
    }

    private func prepared(_ sql: String, on handle: OpaquePointer) throws -> Prepared {
        if let prepared = statements[sql] { return prepared }
        var statement: OpaquePointer?
        let status = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard status == SQLITE_OK, let statement else { throw failure(status, handle) }
        let (columns, indexes) = Self.names(of: statement)
        // Statements whose text varies (a multi-row insert's size) are not worth keeping many of.
        if statements.count >= 256, let evicted = statements.popFirst() { sqlite3_finalize(evicted.value.statement) }
        let prepared = Prepared(statement: statement, columns: columns, indexes: indexes)
        statements[sql] = prepared
        return prepared
    }

    private static func names(of statement: OpaquePointer) -> ([String], [String: Int]) {
        let columns = (0..<sqlite3_column_count(statement)).map { String(cString: sqlite3_column_name(statement, $0)) }
        var indexes: [String: Int] = [:]
        for (index, name) in columns.enumerated() where indexes[name] == nil { indexes[name] = index }
        return (columns, indexes)
    }

    private func column(_ statement: OpaquePointer, _ index: Int32) -> SQLiteValue {
        switch sqlite3_column_type(statement, index) {
        case SQLITE_INTEGER: return .integer(sqlite3_column_int64(statement, index))
        case SQLITE_FLOAT: return .real(sqlite3_column_double(statement, index))
        case SQLITE_TEXT:
            guard let text = sqlite3_column_text(statement, index) else { return .text("") }
            let length = Int(sqlite3_column_bytes(statement, index))
            return .text(String(decoding: UnsafeBufferPointer(start: text, count: length), as: UTF8.self))
        case SQLITE_BLOB:
            let count = Int(sqlite3_column_bytes(statement, index))
            guard let bytes = sqlite3_column_blob(statement, index) else { return .blob([]) }
            return .blob(Array(UnsafeRawBufferPointer(start: bytes, count: count)))
        default: return .null
        }
    }

    private func failure(_ status: Int32, _ handle: OpaquePointer) -> SQLiteFailure {
        SQLiteFailure(code: status, message: String(cString: sqlite3_errmsg(handle)))
    }

    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    func close() async {
        _ = try? await run { connection in
            for prepared in connection.statements.values { sqlite3_finalize(prepared.statement) }
            connection.statements = [:]
            sqlite3_close_v2(connection.handle)
            connection.handle = nil
        }
        await thread.stop()
    }
}

/// The columns and rows a statement returned.
struct SQLiteResult: Sendable {
    var columns: [String]
    /// Each column name's first position.
    var indexes: [String: Int]
    var rows: [[SQLiteValue]]
}

/// An error SQLite returned, with its result code.
public struct SQLiteFailure: Error, Hashable, Sendable, CustomStringConvertible {
    public var code: Int32
    public var message: String
    public var description: String { "sqlite error \(code): \(message)" }
}

/// SQLKit over an `EmbeddedSQLiteConnection`.
struct EmbeddedSQLDatabase: SQLDatabase {
    let connection: EmbeddedSQLiteConnection
    let logger: Logger
    var eventLoop: any EventLoop { MultiThreadedEventLoopGroup.singleton.any() }
    var version: (any SQLDatabaseReportedVersion)? { nil }
    var dialect: any SQLDialect { EmbeddedSQLiteDialect() }
    var queryLogLevel: Logger.Level? { nil }

    func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> Void) -> EventLoopFuture<
        Void
    > {
        eventLoop.makeFutureWithTask { try await self.execute(sql: query, onRow) }
    }

    func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> Void) async throws {
        let (sql, binds) = serialize(query)
        let values = try binds.map { try SQLiteValue(encoding: $0) }
        let result = try await connection.run { try $0.query(sql, values) }
        for values in result.rows {
            onRow(EmbeddedSQLiteRow(columns: result.columns, indexes: result.indexes, values: values))
        }
    }

    func withSession<R>(_ closure: @escaping @Sendable (any SQLDatabase) async throws -> R) async throws -> R {
        try await closure(self)
    }
}

struct EmbeddedSQLiteRow: SQLRow {
    let columns: [String]
    let indexes: [String: Int]
    let values: [SQLiteValue]

    var allColumns: [String] { columns }
    func contains(column: String) -> Bool { indexes[column] != nil }

    func decodeNil(column: String) throws -> Bool {
        guard let index = indexes[column] else { throw Self.missing(column) }
        return values[index] == .null
    }

    func decode<D: Decodable>(column: String, as type: D.Type) throws -> D {
        guard let index = indexes[column] else { throw Self.missing(column) }
        return try SQLiteValueDecoder.decode(D.self, from: values[index])
    }

    private struct ColumnKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    private static func missing(_ column: String) -> DecodingError {
        .keyNotFound(
            ColumnKey(stringValue: column),
            .init(codingPath: [], debugDescription: "the query returned no column \(column)"))
    }
}
