public import Domain
import Foundation
public import SQLKit

/// Where a keyset-paginated list continues: the sort key and the id of the last row served.
/// Clients see it as an opaque string (`next_cursor`) and send it back unchanged.
public struct KeysetCursor: Hashable, Sendable {
    public var key: Int64
    public var id: String

    public init(key: Int64, id: String) {
        self.key = key
        self.id = id
    }

    /// The cursor after `row`: its `key` column and its `id`.
    public init(row: any SQLRow, key column: String) throws {
        self.init(
            key: try row.decode(column: column, as: Int64.self), id: try row.decode(column: "id", as: String.self))
    }

    /// The form clients see: the key's 64 bits as 16 lower-case hex digits, a dot, and the id
    /// (a lower-case UUID): `KeysetCursor.pattern`, which the OpenAPI document states too, so
    /// that every string of that form is a place in the list and every other is refused.
    public var token: String {
        let hex = String(UInt64(bitPattern: key), radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex + "." + id
    }

    /// What a token looks like.
    public static let pattern = #"^[0-9a-f]{16}\.[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$"#

    /// Parses a token from a client; one not of `pattern` is an `invalid_argument` naming `field`.
    public init(token: String, field: String = "cursor") throws(OrderlyError) {
        let bytes = Array(token.utf8)
        func isHex(_ byte: UInt8) -> Bool { (0x30...0x39).contains(byte) || (0x61...0x66).contains(byte) }
        let dashes: Set<Int> = [17 + 8, 17 + 13, 17 + 18, 17 + 23]
        guard bytes.count == 17 + 36, bytes[16] == UInt8(ascii: "."),
            bytes.indices.allSatisfy({
                $0 == 16 || (dashes.contains($0) ? bytes[$0] == UInt8(ascii: "-") : isHex(bytes[$0]))
            }),
            let bits = UInt64(String(decoding: bytes[..<16], as: UTF8.self), radix: 16)
        else { throw OrderlyError.invalidFields([field: "is not a cursor this list returned"]) }
        self.init(key: Int64(bitPattern: bits), id: String(decoding: bytes[17...], as: UTF8.self))
    }

    /// The page size a request asks for: 1…`maximum`, `defaultLimit` when absent.
    public static func limit(_ requested: Int?, default defaultLimit: Int = 50, maximum: Int = 200) throws(OrderlyError)
        -> Int
    {
        guard let requested else { return defaultLimit }
        guard (1...maximum).contains(requested) else {
            throw OrderlyError.invalidFields(["limit": "must be from 1 to \(maximum)"])
        }
        return requested
    }
}

extension KeysetCursor {
    /// The end of a keyset query over (`key`, `id`) (`key` defaults to `created_at`): the rows
    /// after `cursor`, in order, one more than `limit` so that `page(_:limit:as:key:)` knows
    /// whether another page follows. Append it to a query whose `WHERE` clause is already open.
    /// `key` is written into the SQL as it is: a column name from the code, never from a request.
    public static func pageClause(
        after cursor: KeysetCursor?, limit: Int, descending: Bool = false, key: String = "created_at"
    ) -> SQLQueryString {
        let column = SQLQueryString(key)
        var clause: SQLQueryString = ""
        if let cursor {
            // A row-value comparison: both databases read it as a range of the (key, id) index.
            let beyond: SQLQueryString = descending ? " < " : " > "
            clause = " AND (" + column + ", id)" + beyond + "(\(bind: cursor.key), \(bind: cursor.id))"
        }
        return clause + " ORDER BY " + column + (descending ? " DESC, id DESC" : ", id") + " LIMIT \(bind: limit + 1)"
    }

    /// A page of the values stored in the `doc` column of the rows `source` names (a table and
    /// its condition, `"orders WHERE store_id = …"`), after `cursor` in (`key`, `id`) order; with
    /// `counting`, also how many rows `source` names in all (`total(of:in:)`).
    public static func list<Value: Decodable>(
        _ type: Value.Type, from source: SQLQueryString, key: String = "created_at", descending: Bool = false,
        after cursor: KeysetCursor?, limit: Int, counting: Bool, in sql: any SQLDatabase
    ) async throws -> (items: [Value], next: String?, total: ListTotal?) {
        let rows = try await sql.raw(
            "SELECT doc, " + SQLQueryString(key) + ", id FROM " + source
                + pageClause(after: cursor, limit: limit, descending: descending, key: key)
        ).all()
        let page = try page(rows, limit: limit, as: type, key: key)
        return (page.items, page.next, counting ? try await total(of: source, in: sql) : nil)
    }

    /// How many rows `source` (a table and its condition) names, counted up to `ListTotal.bound`
    /// and no further: the count reads the index the condition uses, and no row's document.
    public static func total(of source: SQLQueryString, in sql: any SQLDatabase) async throws -> ListTotal {
        let row = try await sql.raw(
            "SELECT COUNT(*) AS n FROM (SELECT 1 AS one FROM " + source
                + " LIMIT \(bind: ListTotal.bound + 1)) AS counted"
        ).first()
        return ListTotal(counted: try row?.decode(column: "n", as: Int.self) ?? 0)
    }

    /// The values stored in the `doc` column of the first `limit` rows (which selected `doc`,
    /// `key` and `id`), as many as fit in `maximumPageBytes`, and the cursor of the next page:
    /// nil on the last.
    public static func page<Value: Decodable>(
        _ rows: [any SQLRow], limit: Int, as type: Value.Type, key: String = "created_at"
    ) throws -> (items: [Value], next: String?) {
        let items = try documents(rows.prefix(limit), as: type)
        return (items, rows.count > items.count ? try KeysetCursor(row: rows[items.count - 1], key: key).token : nil)
    }

    /// The most stored-document bytes one page carries. A page stops early, its cursor after
    /// the last value it holds, rather than outgrow a Wire frame (4 MiB by default) with a few
    /// large documents.
    public static let maximumPageBytes = 1 << 20

    /// A page of a change feed from `rows` (`doc` and `change_seq`, read after `since` in
    /// `change_seq` order with `LIMIT limit + 1`): the documents, as many as `documents` lets
    /// in; the last `change_seq` they reach (`since` when there are none), the cursor to ask
    /// from next; and whether more changes wait.
    public static func changes<Value: Decodable>(
        _ rows: [any SQLRow], limit: Int, since: Int64, as type: Value.Type
    ) throws -> (items: [Value], last: Int64, hasMore: Bool) {
        let items = try documents(rows.prefix(limit), as: type)
        let last = try items.isEmpty ? since : rows[items.count - 1].decode(column: "change_seq", as: Int64.self)
        return (items, last, rows.count > items.count)
    }

    /// The values stored in the `doc` column of `rows`, in order, as many as fit in
    /// `maximumPageBytes`, and always the first.
    public static func documents<Value: Decodable>(_ rows: ArraySlice<any SQLRow>, as type: Value.Type) throws
        -> [Value]
    {
        var values: [Value] = []
        var bytes = 0
        for row in rows {
            let text = try row.decode(column: "doc", as: String.self)
            bytes += text.utf8.count
            if !values.isEmpty, bytes > maximumPageBytes { break }
            values.append(try StoredDocument.decode(type, from: text))
        }
        return values
    }
}
