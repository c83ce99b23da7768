import Foundation
import SQLKit

/// One step of a service's schema. Versions start at 1 and go up by one; a version, once
/// released, never changes (its name is recorded and checked at every start).
public struct Migration: Sendable {
    public var version: Int
    public var name: String
    public var apply: @Sendable (Transaction) async throws -> Void

    public init(_ version: Int, _ name: String, apply: @escaping @Sendable (Transaction) async throws -> Void) {
        self.version = version
        self.name = name
        self.apply = apply
    }

    /// A step made of SQL statements that mean the same on SQLite and PostgreSQL.
    public init(_ version: Int, _ name: String, sql statements: [String]) {
        self.init(version, name) { transaction in
            for statement in statements { try await transaction.sql.raw(SQLQueryString(statement)).run() }
        }
    }
}
