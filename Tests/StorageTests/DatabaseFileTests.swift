import Foundation
import Logging
import Testing

@testable import Storage

@Suite("SQLite files")
struct DatabaseFileTests {
    static func mode(_ path: String) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        return (attributes[.posixPermissions] as? NSNumber)?.intValue ?? -1
    }

    @Test("a new database and its directory are readable by their owner only")
    func ownerOnly() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("orderly-files-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let path = root.appendingPathComponent("data/orders.sqlite").path
        let database = try await Database.open(
            .sqlite(path: path, synchronousFull: true), logger: Logger(label: "orderly.tests.files"))
        try await database.migrate(scope: "tests", [])
        await database.close()
        #expect(try Self.mode(root.appendingPathComponent("data").path) == 0o700)
        #expect(try Self.mode(path) == 0o600)
        for companion in ["-wal", "-shm"] where FileManager.default.fileExists(atPath: path + companion) {
            #expect(try Self.mode(path + companion) == 0o600, "\(companion)")
        }
    }

    @Test("opening waits while another connection holds the file, rather than failing at once (found by make test)")
    func waitsForLocks() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("orderly-files-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        let path = root.appendingPathComponent("orders.sqlite").path
        // A file still in rollback-journal mode, read by another connection: switching it to WAL
        // needs the file to itself.
        let other = try await EmbeddedSQLiteConnection.open(path: path, name: "other")
        for statement in ["CREATE TABLE t (x)", "BEGIN", "SELECT * FROM t"] {
            _ = try await other.run { try $0.query(statement, []) }
        }
        let release = Task {
            try await Task.sleep(for: .milliseconds(300))
            _ = try await other.run { try $0.query("COMMIT", []) }
        }
        let database = try await Database.open(
            .sqlite(path: path, synchronousFull: true), logger: Logger(label: "orderly.tests.files"))
        try await release.value
        try await database.migrate(scope: "tests", [])
        await database.close()
        await other.close()
    }
}
