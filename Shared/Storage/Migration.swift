import Foundation
import SQLKit

/// One step of a service's schema. Versions start at 1 and go up by one; a version, once
/// released, never changes (its name is recorded and checked at every start).
///
/// Each step says which builds can run on the schema it makes (`readers`), so that a rollback
/// to the release before works on the migrated database: expand, deploy, contract
/// (docs/OPERATIONS.md, "Upgrading").
public struct Migration: Sendable {
    /// Which builds of the service run on the schema once this step is applied.
    public enum Readers: Sendable, Equatable {
        /// Expand: it only adds (tables, nullable or defaulted columns, indexes, rows nobody
        /// earlier reads), so every earlier build runs on it unchanged.
        case earlierBuilds
        /// Contract: it drops or reshapes what builds knowing fewer than `version` steps used.
        /// Those refuse to start on it; `version` is below this step's own, so the build before
        /// it still runs (it stopped using what goes, a release earlier).
        case buildsFrom(Int)
    }

    public var version: Int
    public var name: String
    /// Nil for the steps recorded before the rule: no earlier build is said to run on them.
    public var readers: Readers?
    public var apply: @Sendable (Transaction) async throws -> Void

    public init(
        _ version: Int, _ name: String, readers: Readers? = nil,
        apply: @escaping @Sendable (Transaction) async throws -> Void
    ) {
        self.version = version
        self.name = name
        self.readers = readers
        self.apply = apply
    }

    /// A step made of SQL statements that mean the same on SQLite and PostgreSQL.
    public init(_ version: Int, _ name: String, readers: Readers? = nil, sql statements: [String]) {
        self.init(version, name, readers: readers) { transaction in
            for statement in statements { try await transaction.sql.raw(SQLQueryString(statement)).run() }
        }
    }

    /// How `readers` is recorded (`orderly_migrations.readers`): NULL for none said, 0 for every
    /// earlier build, else the fewest steps a build must know.
    var recordedReaders: Int? {
        switch readers {
        case nil: nil
        case .earlierBuilds: 0
        case .buildsFrom(let version): version
        }
    }
}
