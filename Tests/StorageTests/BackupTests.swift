import Foundation
import Logging
import SQLKit
import Storage
import Synchronization
import TestSupport
import Testing

@Suite("Backups")
struct BackupTests {
    static let migrations = [
        Migration(
            1, "notes", sql: ["CREATE TABLE notes (id TEXT PRIMARY KEY, body TEXT NOT NULL, seq BIGINT NOT NULL)"])
    ]

    @Test("a backup taken while writers commit opens as a database holding every row committed before it began, whole")
    func underLoad() async throws {
        try await TestDatabase.with(.sqlite) { test in
            try await test.database.migrate(scope: "notes", Self.migrations)
            let committed = Mutex<[Int]>([])
            func write(_ seq: Int) async throws {
                try await test.database.transaction { transaction in
                    try await transaction.sql.raw(
                        "INSERT INTO notes (id, body, seq) VALUES (\(bind: "n\(seq)"), 'kept', \(bind: seq))"
                    ).run()
                }
                committed.withLock { $0.append(seq) }
            }
            for seq in 0..<200 { try await write(seq) }
            let folder = URL(fileURLWithPath: test.location.description.replacingOccurrences(of: "sqlite:", with: ""))
                .deletingLastPathComponent()
            let copy = folder.appendingPathComponent("backup.sqlite").path
            // Writers go on while the copy is made.
            let writers = Task {
                for seq in 200..<1200 {
                    if Task.isCancelled { break }
                    try await write(seq)
                }
            }
            let before = Set(committed.withLock { $0 })
            let size = try await test.database.backup(to: copy)
            writers.cancel()
            _ = try? await writers.value
            #expect(size > 0)
            let attributes = try FileManager.default.attributesOfItem(atPath: copy)
            #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)

            let restored = try await Database.open(
                try DatabaseLocation(url: "sqlite:\(copy)"), logger: Logger(label: "backup"))
            let rows = try await restored.read { try await $0.raw("SELECT seq FROM notes").all() }
            let seqs = Set(try rows.map { try $0.decode(column: "seq", as: Int.self) })
            let check = try await restored.read {
                try await $0.raw("PRAGMA integrity_check").first()?.decode(column: "integrity_check", as: String.self)
            }
            // The restored database migrates as the service would at start: nothing to do.
            let applied = try await restored.migrate(scope: "notes", Self.migrations)
            await restored.close()
            #expect(before.isSubset(of: seqs), "rows committed before the backup are missing")
            #expect(seqs.isSubset(of: Set(committed.withLock { $0 })))
            #expect(check == "ok" && applied.isEmpty)
            // A second backup to the same file is refused rather than overwriting it.
            await #expect(throws: StorageError.self) { _ = try await test.database.backup(to: copy) }
        }
    }
}
