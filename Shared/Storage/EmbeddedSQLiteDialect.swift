import Foundation
import SQLKit

/// SQLite's SQL: `?` placeholders, `RETURNING` and `ON CONFLICT` (SQLite 3.35 and later).
struct EmbeddedSQLiteDialect: SQLDialect {
    var name: String { "sqlite" }
    var identifierQuote: any SQLExpression { SQLRaw("\"") }
    var literalStringQuote: any SQLExpression { SQLRaw("'") }
    /// A bare `?`, numbered by SQLite in the order it comes, which is the bind's `position`:
    /// SQLKit writes each bind's placeholder as it appends the bind. SQLite compiles `?N` by
    /// looking the number up in a list of the statement's parameters, a cost that grows with the
    /// square of their count: a 900-row notifications insert (4,500 binds) spent half the
    /// notifications service's CPU there.
    func bindPlaceholder(at position: Int) -> any SQLExpression { SQLRaw("?") }
    func literalBoolean(_ value: Bool) -> any SQLExpression { SQLRaw(value ? "TRUE" : "FALSE") }
    var literalDefault: any SQLExpression { SQLLiteral.null }
    var supportsIfExists: Bool { true }
    var supportsDropBehavior: Bool { false }
    var supportsAutoIncrement: Bool { false }
    var autoIncrementClause: any SQLExpression { SQLRaw("AUTOINCREMENT") }
    var enumSyntax: SQLEnumSyntax { .unsupported }
    var alterTableSyntax: SQLAlterTableSyntax { .init(allowsBatch: false) }
    var upsertSyntax: SQLUpsertSyntax { .standard }
    var supportsReturning: Bool { true }
    var unionFeatures: SQLUnionFeatures { [.union, .unionAll, .intersect, .except] }
    func customDataType(for dataType: SQLDataType) -> (any SQLExpression)? {
        if case .bigint = dataType { return SQLDataType.int }
        return nil
    }
}
