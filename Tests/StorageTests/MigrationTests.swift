import Foundation
import SQLKit
import Storage
import Synchronization
import TestSupport
import Testing

@Suite("Migrations and transactions")
struct MigrationTests {
    /// What the transactions these tests roll back throw.
    struct Refused: Error {}

    static let migrations = [
        Migration(
            1, "notes", sql: ["CREATE TABLE notes (id TEXT PRIMARY KEY, body TEXT NOT NULL, seq BIGINT NOT NULL)"]),
        Migration(2, "notes.author", sql: ["ALTER TABLE notes ADD COLUMN author TEXT"]),
    ]

    @Test("applying twice is a no-op", arguments: TestDatabase.kinds)
    func twice(kind: Database.Kind) async throws {
        try await TestDatabase.with(kind) { test in
            let first = try await test.database.migrate(scope: "notes", Self.migrations)
            let second = try await test.database.migrate(scope: "notes", Self.migrations)
            // A new version later applies only what is new.
            let third = Self.migrations + [Migration(3, "notes.index", sql: ["CREATE INDEX notes_seq ON notes (seq)"])]
            let later = try await test.database.migrate(scope: "notes", third)
            #expect(first == [1, 2] && second == [] && later == [3])
        }
    }

    @Test("two replicas starting at once migrate once", arguments: TestDatabase.kinds)
    func concurrentReplicas(kind: Database.Kind) async throws {
        try await TestDatabase.with(kind) { test in
            let second = try await test.openAgain()
            async let first = test.database.migrate(scope: "notes", Self.migrations)
            async let other = second.migrate(scope: "notes", Self.migrations)
            let applied = try await [first, other]
            await second.close()
            #expect(applied.sorted { $0.count < $1.count } == [[], [1, 2]])
        }
    }

    @Test("a changed history is refused", arguments: TestDatabase.kinds)
    func changedHistory(kind: Database.Kind) async throws {
        try await TestDatabase.with(kind) { test in
            try await test.database.migrate(scope: "notes", Self.migrations)
            let renamed = [Self.migrations[0], Migration(2, "something else", sql: [])]
            await #expect(throws: StorageError.self) { try await test.database.migrate(scope: "notes", renamed) }
            // An older build that knows fewer migrations must not run on a newer schema.
            await #expect(throws: StorageError.self) {
                try await test.database.migrate(scope: "notes", [Self.migrations[0]])
            }
            let gap = [Migration(1, "a", sql: []), Migration(3, "b", sql: [])]
            await #expect(throws: StorageError.self) { try await test.database.migrate(scope: "other", gap) }
        }
    }

    @Test(
        "rolling back: the build before runs on a schema whose new steps say it may, writing and reading as before; one that may not is refused, naming the step",
        arguments: TestDatabase.kinds)
    func rollbackToThePreviousBuild(kind: Database.Kind) async throws {
        try await TestDatabase.with(kind) { test in
            // The release before: two steps, and its code.
            try await test.database.migrate(scope: "notes", Self.migrations)
            func previousCode(_ id: String) async throws -> String? {
                try await test.database.transaction { transaction in
                    try await transaction.sql.raw(
                        "INSERT INTO notes (id, body, seq, author) VALUES (\(bind: id), 'kept', 1, 'dana')"
                    ).run()
                }
                return try await test.database.read {
                    try await $0.raw("SELECT body FROM notes WHERE id = \(bind: id)").first()?
                        .decode(column: "body", as: String.self)
                }
            }
            #expect(try await previousCode("before") == "kept")
            // The new release expands: a column with a default and an index.
            let expanded =
                Self.migrations + [
                    Migration(
                        3, "notes.pinned", readers: .earlierBuilds,
                        sql: [
                            "ALTER TABLE notes ADD COLUMN pinned BOOLEAN NOT NULL DEFAULT FALSE",
                            "CREATE INDEX notes_pinned ON notes (pinned)",
                        ])
                ]
            #expect(try await test.database.migrate(scope: "notes", expanded) == [3])
            // Rolled back: the previous build starts on it, and its code works.
            #expect(try await test.database.migrate(scope: "notes", Self.migrations) == [])
            #expect(try await previousCode("after rollback") == "kept")
            let status = try await test.database.migrationStatus(scope: "notes", Self.migrations)
            #expect(status.newer.map(\.version) == [3] && status.unreadable == nil)
            #expect(status.summary == "notes: schema at 3, newer than this build's 2, and readable by it")

            // The release after contracts what builds from 3 on no longer use: 2 steps are too few.
            let contracted =
                expanded + [
                    Migration(4, "notes.author dropped", readers: .buildsFrom(3), sql: ["DROP INDEX notes_pinned"])
                ]
            #expect(try await test.database.migrate(scope: "notes", contracted) == [4])
            #expect(try await test.database.migrate(scope: "notes", expanded) == [])
            do {
                try await test.database.migrate(scope: "notes", Self.migrations)
                Issue.record("a build of 2 steps started on a schema that needs 3")
            } catch let error as StorageError {
                guard case .schemaTooNew(let scope, let schema, let known, let step) = error else {
                    Issue.record("unexpected \(error)")
                    return
                }
                #expect(scope == "notes" && schema == 4 && known == 2 && step.version == 4)
                #expect(error.description.contains("step 4 \"notes.author dropped\" is not readable by this build"))
            }
            // A step that says nothing (those from before the rule) is read by no earlier build.
            let silent = contracted + [Migration(5, "notes.more", sql: ["ALTER TABLE notes ADD COLUMN more TEXT"])]
            try await test.database.migrate(scope: "notes", silent)
            await #expect(throws: StorageError.self) { try await test.database.migrate(scope: "notes", contracted) }
        }
    }

    @Test(
        "a database migrated before steps recorded their readers gains the column, and its steps count as read by none earlier",
        arguments: TestDatabase.kinds)
    func tableFromBefore(kind: Database.Kind) async throws {
        try await TestDatabase.with(kind) { test in
            try await test.database.transaction { transaction in
                try await transaction.sql.raw(
                    """
                    CREATE TABLE orderly_migrations (
                        scope TEXT NOT NULL, version INTEGER NOT NULL, name TEXT NOT NULL, applied_at BIGINT NOT NULL,
                        PRIMARY KEY (scope, version))
                    """
                ).run()
            }
            #expect(try await test.database.migrate(scope: "notes", Self.migrations) == [1, 2])
            let status = try await test.database.migrationStatus(scope: "notes", [Self.migrations[0]])
            #expect(status.recorded.map(\.readers) == [nil, nil] && status.unreadable?.version == 2)
        }
    }

    @Test("a step must leave the schema readable by the build before it: expand, deploy, contract")
    func contractTooSoon() async throws {
        try await TestDatabase.with(.sqlite) { test in
            let tooSoon =
                Self.migrations + [Migration(3, "notes dropped", readers: .buildsFrom(3), sql: ["DROP TABLE notes"])]
            do {
                try await test.database.migrate(scope: "notes", tooSoon)
                Issue.record("a step read by no earlier build was applied")
            } catch let error as StorageError {
                #expect(error.description.contains("must leave the schema readable by the build before it"))
            }
            let status = try await test.database.migrationStatus(scope: "notes", Self.migrations)
            #expect(status.recorded.isEmpty)
        }
    }

    @Test("a failed migration leaves nothing behind", arguments: TestDatabase.kinds)
    func failedMigration(kind: Database.Kind) async throws {
        try await TestDatabase.with(kind) { test in
            let broken = Self.migrations + [Migration(3, "broken", sql: ["CREATE TABLE extra (id TEXT)", "NOT SQL"])]
            await #expect(throws: (any Error).self) { try await test.database.migrate(scope: "notes", broken) }
            // Everything was one transaction: the whole set applies again from scratch.
            let applied = try await test.database.migrate(scope: "notes", Self.migrations)
            #expect(applied == [1, 2])
        }
    }

    @Test("a transaction that throws leaves no rows and no events", arguments: TestDatabase.kinds)
    func rollback(kind: Database.Kind) async throws {
        try await TestDatabase.with(kind) { test in
            try await test.database.migrate(scope: "notes", Self.migrations)
            await #expect(throws: Refused.self) {
                try await test.database.transaction { transaction in
                    try await transaction.sql.raw("INSERT INTO notes (id, body, seq) VALUES ('a', 'x', 1)").run()
                    transaction.publish(.init(type: "note.created", storeID: nil, aggregateID: "a", payload: .null))
                    throw Refused()
                }
            }
            let counts = try await test.database.read { sql in
                (
                    try await sql.raw("SELECT COUNT(*) AS n FROM notes").first()?.decode(column: "n", as: Int.self),
                    try await sql.raw("SELECT COUNT(*) AS n FROM orderly_outbox").first()?.decode(
                        column: "n", as: Int.self)
                )
            }
            #expect(counts.0 == 0 && counts.1 == 0)
        }
    }

    @Test(
        "a transaction that changes more than a savepoint journal holds in memory rolls back whole",
        arguments: TestDatabase.kinds)
    func largeRollback(kind: Database.Kind) async throws {
        try await TestDatabase.with(kind) { test in
            try await test.database.migrate(scope: "notes", Self.migrations)
            let body = String(repeating: "x", count: 1000)
            try await test.database.transaction { transaction in
                for index in 0..<400 {
                    try await transaction.sql.raw(
                        "INSERT INTO notes (id, body, seq) VALUES (\(bind: "n\(index)"), \(bind: body), \(bind: index))"
                    ).run()
                }
            }
            // ~100 pages changed: on SQLite more than the 64 KiB its savepoint journal keeps in
            // memory, so the journal moves to a temporary file before the rollback reads it back.
            // Small transactions share its group meanwhile.
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    await #expect(throws: Refused.self) {
                        try await test.database.transaction { transaction in
                            try await transaction.sql.raw("UPDATE notes SET body = 'changed', seq = seq + 1000").run()
                            throw Refused()
                        }
                    }
                }
                for index in 400..<420 {
                    group.addTask {
                        try await test.database.transaction { transaction in
                            try await transaction.sql.raw(
                                "INSERT INTO notes (id, body, seq) VALUES (\(bind: "n\(index)"), 'small', \(bind: index))"
                            ).run()
                        }
                    }
                }
                try await group.waitForAll()
            }
            let rows = try await test.database.read { sql in
                try await sql.raw("SELECT body, seq FROM notes").all().map {
                    (try $0.decode(column: "body", as: String.self), try $0.decode(column: "seq", as: Int.self))
                }
            }
            #expect(rows.map(\.1).sorted() == Array(0..<420))
            #expect(rows.allSatisfy { $0.1 < 400 ? $0.0 == body : $0.0 == "small" })
        }
    }

    @Test(
        "of concurrent transactions, those that throw leave nothing and the rest commit",
        arguments: TestDatabase.kinds)
    func concurrentFailures(kind: Database.Kind) async throws {
        try await TestDatabase.with(kind) { test in
            try await test.database.migrate(scope: "notes", Self.migrations)
            // Many at once, so that on SQLite they share group commits with failing members.
            let committed = try await withThrowingTaskGroup(of: Bool.self) { group in
                for index in 0..<60 {
                    group.addTask {
                        do {
                            try await test.database.transaction { transaction in
                                try await transaction.sql.raw(
                                    "INSERT INTO notes (id, body, seq) VALUES (\(bind: "n\(index)"), 'x', \(bind: index))"
                                ).run()
                                if index % 3 == 0 { throw Refused() }
                            }
                            return true
                        } catch is Refused {
                            return false
                        }
                    }
                }
                return try await group.reduce(into: 0) { $0 += $1 ? 1 : 0 }
            }
            let rows = try await test.database.read { sql in
                try await sql.raw("SELECT seq FROM notes").all().map { try $0.decode(column: "seq", as: Int.self) }
            }
            #expect(committed == 40)
            #expect(rows.sorted() == (0..<60).filter { $0 % 3 != 0 })
        }
    }

    @Test("SQLite keeps text whole, NUL and all, and reads values back as written")
    func sqliteValues() async throws {
        try await TestDatabase.with(.sqlite) { test in
            try await test.database.migrate(scope: "notes", Self.migrations)
            let body = "before\u{0}after é 🚚"
            try await test.database.transaction { transaction in
                try await transaction.sql.raw(
                    "INSERT INTO notes (id, body, seq, author) VALUES ('a', \(bind: body), \(bind: Int64.max), \(bind: nil as String?))"
                ).run()
            }
            let row = try await test.database.read { try await $0.raw("SELECT body, seq, author FROM notes").first() }
            #expect(try row?.decode(column: "body", as: String.self) == body)
            #expect(try row?.decode(column: "seq", as: Int64.self) == .max)
            #expect(try row?.decode(column: "author", as: String?.self) == nil)
            #expect(try row?.decodeNil(column: "author") == true)
        }
    }

    @Test("an SQLite commit reaches the disk before it returns, unless the URL asks for synchronous=normal")
    func durableByDefault() async throws {
        #expect(
            try DatabaseLocation(url: "sqlite:data/orders.sqlite")
                == .sqlite(path: "data/orders.sqlite", synchronousFull: true))
        #expect(
            try DatabaseLocation(url: "sqlite:data/orders.sqlite?synchronous=normal")
                == .sqlite(path: "data/orders.sqlite", synchronousFull: false))
        try await TestDatabase.with(.sqlite) { test in
            // The writer's setting: 2 is FULL (a sync per commit, shared by a group), 1 NORMAL.
            let level = try await test.database.transaction { transaction in
                try await transaction.sql.raw("PRAGMA synchronous").first()?.decode(column: "synchronous", as: Int.self)
            }
            #expect(level == 2)
        }
    }

    @Test("under a steady stream of commits SQLite's WAL starts over instead of growing")
    func walStartsOver() async throws {
        try await TestDatabase.with(.sqlite) { test in
            guard case .sqlite(let path, _) = test.location else { return }
            try await test.database.migrate(scope: "notes", Self.migrations)
            // Bytes 16..<20 of the WAL's header: salt-1, which SQLite changes whenever the WAL
            // starts over from its beginning.
            @Sendable func salt() throws -> [UInt8] {
                let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path + "-wal"))
                defer { try? handle.close() }
                try handle.seek(toOffset: 16)
                return Array(try handle.read(upToCount: 4) ?? Data())
            }
            let stop = StopFlag()
            let startedOver = try await withThrowingTaskGroup(of: Void.self) { writers in
                for writer in 0..<8 {
                    writers.addTask {
                        var written = 0
                        while !stop.isSet {
                            let index = written
                            try await test.database.transaction { transaction in
                                try await transaction.sql.raw(
                                    "INSERT INTO notes (id, body, seq) VALUES (\(bind: "\(writer)-\(index)"), 'x', \(bind: index))"
                                ).run()
                            }
                            written += 1
                        }
                    }
                }
                let first = await eventually { try? salt() }
                let startedOver = await waitUntil(within: .seconds(20)) {
                    (try? salt()).map { $0 != first } ?? false
                }
                stop.set()
                try await writers.waitForAll()
                return startedOver
            }
            #expect(startedOver)
        }
    }

    @Test("sequences count up in commit order under concurrent writers", arguments: TestDatabase.kinds)
    func sequences(kind: Database.Kind) async throws {
        try await TestDatabase.with(kind) { test in
            try await test.database.migrate(scope: "notes", Self.migrations)
            let values = try await withThrowingTaskGroup(of: [Int64].self) { group in
                for _ in 0..<8 {
                    group.addTask {
                        var mine: [Int64] = []
                        for _ in 0..<25 {
                            mine.append(try await test.database.transaction { try await $0.nextSequence("notes") })
                        }
                        return mine
                    }
                }
                var all: [[Int64]] = []
                for try await mine in group { all.append(mine) }
                return all
            }
            for mine in values { #expect(mine == mine.sorted()) }
            #expect(values.flatMap { $0 }.sorted() == Array(1...200))
        }
    }
}

/// Tells writer tasks to stop.
final class StopFlag: Sendable {
    private let value = Atomic(false)
    var isSet: Bool { value.load(ordering: .relaxed) }
    func set() { value.store(true, ordering: .relaxed) }
}
