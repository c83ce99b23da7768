import Domain
import Foundation
import SQLKit
import Storage
import TestSupport
import Testing

@Suite("Keyset pages")
struct KeysetPageTests {
    struct Document: Codable, Equatable {
        var id: Int
        var text: String
    }

    @Test("a page of large documents stops before a megabyte, and goes on at its cursor")
    func byteBudget() async throws {
        try await TestDatabase.with(.sqlite) { test in
            let database = test.database
            try await database.migrate(
                scope: "tests",
                [Migration(1, "docs", sql: ["CREATE TABLE docs (id TEXT PRIMARY KEY, created_at BIGINT, doc TEXT)"])])
            // Five documents of 300 kB: all five fit the count, not the bytes.
            try await database.transaction { transaction in
                for index in 0..<5 {
                    let document = Document(id: index, text: String(repeating: "x", count: 300_000))
                    try await transaction.sql.raw(
                        """
                        INSERT INTO docs (id, created_at, doc)
                        VALUES (\(bind: "00000000-0000-4000-8000-00000000000\(index)"), \(bind: index), \(bind: String(decoding: try JSONEncoder().encode(document), as: UTF8.self)))
                        """
                    ).run()
                }
            }
            var seen: [Int] = []
            var cursor: KeysetCursor?
            var pages: [Int] = []
            repeat {
                let page = try await database.read { sql in
                    let rows = try await sql.raw(
                        "SELECT id, created_at, doc FROM docs WHERE 1 = 1"
                            + KeysetCursor.pageClause(after: cursor, limit: 50)
                    ).all()
                    return try KeysetCursor.page(rows, limit: 50, as: Document.self)
                }
                pages.append(page.items.count)
                seen += page.items.map(\.id)
                cursor = try page.next.map { token throws in try KeysetCursor(token: token) }
            } while cursor != nil
            #expect(pages == [3, 2])
            #expect(seen == [0, 1, 2, 3, 4])
        }
    }

    @Test("one document larger than the budget still makes a page of its own")
    func oneLargeDocument() async throws {
        try await TestDatabase.with(.sqlite) { test in
            let rows = try await test.database.read { sql in
                try await sql.raw(
                    "SELECT 'a' AS id, 1 AS created_at, \(bind: "{\"id\":1,\"text\":\"\(String(repeating: "y", count: 1_200_000))\"}") AS doc"
                ).all()
            }
            let documents = try KeysetCursor.documents(rows[...], as: Document.self)
            #expect(documents.count == 1)
        }
    }
}

@Suite("Keyset cursor")
struct KeysetCursorTests {
    @Test("a cursor reads back as written, negative keys too, and only strings of its pattern are cursors")
    func grammar() throws {
        for key in [Int64(0), 1_732_000_000_000_000, -5, .max, .min] {
            let cursor = KeysetCursor(key: key, id: "0f8fad5b-d9cb-469f-a165-70867728950e")
            #expect(cursor.token.range(of: KeysetCursor.pattern, options: .regularExpression) != nil)
            #expect(try KeysetCursor(token: cursor.token) == cursor)
        }
        let good = "00000000000000ff.0f8fad5b-d9cb-469f-a165-70867728950e"
        #expect(try KeysetCursor(token: good).key == 255)
        for bad in [
            "", "0", String(repeating: "0", count: 200), "00000000000000FF.0f8fad5b-d9cb-469f-a165-70867728950e",
            "00000000000000ff.0F8FAD5B-d9cb-469f-a165-70867728950e",
            "00000000000000ff-0f8fad5b-d9cb-469f-a165-70867728950e",
            "0000000000000ff.0f8fad5b-d9cb-469f-a165-70867728950e",
            "00000000000000ff.0f8fad5bd-9cb-469f-a165-70867728950e",
            good + "0",
        ] {
            #expect(throws: OrderlyError.self, "\(bad)") { try KeysetCursor(token: bad) }
            #expect(bad.range(of: KeysetCursor.pattern, options: .regularExpression) == nil)
        }
    }
}

@Suite("List totals")
struct ListTotalTests {
    @Test("a count is exact up to the bound, then the bound marked estimated", arguments: TestDatabase.kinds)
    func counting(on kind: Database.Kind) async throws {
        try await TestDatabase.with(kind) { test in
            let database = test.database
            try await database.migrate(
                scope: "tests",
                [
                    Migration(
                        1, "docs",
                        sql: ["CREATE TABLE docs (id TEXT PRIMARY KEY, created_at BIGINT, kind TEXT, doc TEXT)"])
                ])
            // 3 rows of one kind and one more than the bound of the other.
            let rows = ListTotal.bound + 4
            try await database.transaction { transaction in
                try await transaction.sql.raw(
                    """
                    INSERT INTO docs (id, created_at, kind, doc)
                    WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(bind: rows))
                    SELECT CAST(i AS TEXT), i, CASE WHEN i <= 3 THEN 'few' ELSE 'many' END,
                        '{"id":' || CAST(i AS TEXT) || ',"text":"t"}'
                    FROM n
                    """
                ).run()
            }
            try await database.read { sql in
                #expect(try await KeysetCursor.total(of: "docs WHERE kind = 'few'", in: sql) == ListTotal(counted: 3))
                let many = try await KeysetCursor.total(of: "docs WHERE kind = 'many'", in: sql)
                #expect(many == ListTotal(count: ListTotal.bound, estimated: true))
                let exactly = try await KeysetCursor.total(of: "docs WHERE kind = 'many' AND created_at > 4", in: sql)
                #expect(exactly == ListTotal(count: ListTotal.bound, estimated: false))
                #expect(try await KeysetCursor.total(of: "docs WHERE 1 = 0", in: sql) == ListTotal(counted: 0))

                let page = try await KeysetCursor.list(
                    Document.self, from: "docs WHERE kind = 'few'", after: nil, limit: 2, counting: true, in: sql)
                #expect(page.items.map(\.id) == [1, 2] && page.next != nil && page.total == ListTotal(counted: 3))
                let next = try await KeysetCursor.list(
                    Document.self, from: "docs WHERE kind = 'few'", after: KeysetCursor(key: 2, id: "2"), limit: 2,
                    counting: false, in: sql)
                #expect(next.items.map(\.id) == [3] && next.next == nil && next.total == nil)
            }
        }
    }

    @Test("two lists apart add up, an estimate staying one")
    func sums() {
        #expect(ListTotal(counted: 3) + ListTotal(counted: 4) == ListTotal(count: 7, estimated: false))
        #expect(
            ListTotal(counted: 3) + ListTotal(counted: ListTotal.bound + 1)
                == ListTotal(count: ListTotal.bound, estimated: true))
        #expect(
            ListTotal(counted: ListTotal.bound) + ListTotal(counted: 1)
                == ListTotal(count: ListTotal.bound, estimated: true))
    }

    struct Document: Codable, Equatable {
        var id: Int
        var text: String
    }
}
