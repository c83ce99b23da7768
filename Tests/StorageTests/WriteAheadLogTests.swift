import CSQLite
import Foundation
import Testing

/// The VFS that writes a commit's WAL frames in one call (`ORDERLY_SQLITE_VFS`), checked as a
/// crash would: after each commit, the database and WAL files are copied as they are on disk and
/// the copy is opened without the VFS, so SQLite recovers it from the WAL alone. A frame the VFS
/// still held back would be missing from the copy.
@Suite("SQLite's WAL, written a commit at a time")
struct WriteAheadLogTests {
    struct Failure: Error {
        let code: Int32
        let message: String
    }

    /// A connection through the C API.
    final class Connection {
        let handle: OpaquePointer

        init(path: String, vfs: String?) throws {
            #expect(orderly_sqlite3_configure() == SQLITE_OK)
            var handle: OpaquePointer?
            let status = sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, vfs)
            guard status == SQLITE_OK, let handle else {
                sqlite3_close_v2(handle)
                throw Failure(code: status, message: "cannot open \(path)")
            }
            self.handle = handle
        }

        deinit { sqlite3_close_v2(handle) }

        func execute(_ sql: String) throws {
            let status = sqlite3_exec(handle, sql, nil, nil, nil)
            guard status == SQLITE_OK else {
                throw Failure(code: status, message: String(cString: sqlite3_errmsg(handle)))
            }
        }

        func text(_ sql: String) throws -> String {
            var statement: OpaquePointer?
            guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK else {
                throw Failure(code: sqlite3_errcode(handle), message: String(cString: sqlite3_errmsg(handle)))
            }
            defer { sqlite3_finalize(statement) }
            guard sqlite3_step(statement) == SQLITE_ROW, let text = sqlite3_column_text(statement, 0) else {
                throw Failure(code: sqlite3_errcode(handle), message: "\(sql) returned no row")
            }
            return String(cString: text)
        }
    }

    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("orderly-wal-\(UUID())").path

    init() throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    /// A connection through the VFS to a new database in WAL mode that never checkpoints by
    /// itself, so that everything committed is in the WAL.
    func open(cachePages: Int = 2000) throws -> Connection {
        let connection = try Connection(path: "\(directory)/test.sqlite", vfs: ORDERLY_SQLITE_VFS)
        try connection.execute(
            """
            PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA wal_autocheckpoint = 0;
            PRAGMA cache_size = \(cachePages);
            CREATE TABLE IF NOT EXISTS t (id INTEGER PRIMARY KEY, body BLOB NOT NULL);
            """)
        return connection
    }

    /// Copies the files as they are now and answers what the copy holds (row count and total
    /// body length), after checking its integrity.
    func recovered() throws -> String {
        let copy = "\(directory)/copy-\(UUID())"
        try FileManager.default.createDirectory(atPath: copy, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: copy) }
        for suffix in ["", "-wal"] {
            try FileManager.default.copyItem(
                atPath: "\(directory)/test.sqlite\(suffix)", toPath: "\(copy)/test.sqlite\(suffix)")
        }
        let connection = try Connection(path: "\(copy)/test.sqlite", vfs: nil)
        #expect(try connection.text("PRAGMA integrity_check") == "ok")
        return try connection.text("SELECT count(*) || ' ' || coalesce(sum(length(body)), 0) FROM t")
    }

    @Test("each commit is in the files when it returns, whether of one page or many")
    func commits() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let connection = try open()
        var rows = 0
        var bytes = 0
        for commit in 1...30 {
            // 1 to 60 rows of 700 bytes: commits of one page and commits of many.
            let count = commit % 3 == 0 ? 1 : commit * 2
            try connection.execute(
                """
                BEGIN;
                WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(count))
                INSERT INTO t (body) SELECT randomblob(700) FROM n;
                COMMIT;
                """)
            rows += count
            bytes += count * 700
            #expect(try recovered() == "\(rows) \(bytes)", "after commit \(commit)")
        }
    }

    @Test("a transaction larger than the cache: spilled, partly rewritten, committed or rolled back")
    func spilledTransactions() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let connection = try open(cachePages: 8)
        // Pages spill to the WAL before the commit; the update then rewrites frames this
        // transaction already wrote, whose checksums SQLite recomputes at the commit.
        try connection.execute(
            """
            BEGIN;
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 300)
            INSERT INTO t (body) SELECT randomblob(1000) FROM n;
            UPDATE t SET body = zeroblob(1200) WHERE id <= 50;
            COMMIT;
            """)
        #expect(try recovered() == "300 \(250 * 1000 + 50 * 1200)")
        try connection.execute(
            """
            BEGIN;
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 300)
            INSERT INTO t (body) SELECT randomblob(1000) FROM n;
            ROLLBACK;
            INSERT INTO t (body) VALUES (zeroblob(10));
            """)
        #expect(try recovered() == "301 \(250 * 1000 + 50 * 1200 + 10)")
    }
}
