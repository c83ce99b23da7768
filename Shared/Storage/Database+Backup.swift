import Foundation
import SQLKit

extension Database {
    /// Copies an SQLite database to the new file `path` (mode 0600), consistent at one moment
    /// while the service goes on writing: `VACUUM INTO` reads one snapshot of the database and
    /// writes it compacted, with no WAL beside it. The copy is a database file the service
    /// opens as it is (`sqlite:<path>`). Answers its size in bytes. PostgreSQL is backed up by
    /// its own tools (`pg_dump -Fc`), not here.
    public func backup(to path: String) async throws -> Int {
        guard case .sqlite = location else {
            throw StorageError.unexpected(
                "a PostgreSQL database is backed up with pg_dump -Fc (docs/OPERATIONS.md, Backups), not by Orderly")
        }
        guard !FileManager.default.fileExists(atPath: path) else {
            throw StorageError.unexpected("\(path) exists already: a backup goes to a new file")
        }
        // Made empty and private first: VACUUM INTO takes an empty file, and keeps its mode.
        try Self.createPrivately(sqliteFile: path)
        do {
            try await read { try await $0.raw("VACUUM INTO \(bind: path)").run() }
        } catch {
            try? FileManager.default.removeItem(atPath: path)
            throw error
        }
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        return (attributes[.size] as? NSNumber)?.intValue ?? 0
    }
}
