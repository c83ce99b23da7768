import Contracts
import Domain
import Foundation
import SQLKit
import Storage

/// The ledger's SQL: each entry once by its reference, its postings by account and time, and the
/// running balance of every store's and courier's account, kept in the entry's transaction (the
/// platform's own accounts are summed when asked, so that no row is written by every payment).
struct LedgerRepository: Sendable {
    /// The locks of the stores and couriers whose money `entry` moves.
    static func locks(of entry: LedgerEntry) -> [Lock] {
        entry.postings.compactMap { LedgerAccount(key: $0.account)?.holder }.map(Lock.ledger(of:))
    }

    /// Records `entries` in one transaction as `post(_:in:)` does each, every lock any of them
    /// takes taken first, in one order: posted one by one, a second entry's lock taken after the
    /// first's could wait on an entry of another transaction that waits on the first's.
    func post(_ entries: [LedgerEntry], in transaction: Transaction) async throws {
        try await transaction.lock(entries.flatMap(Self.locks(of:)))
        for entry in entries { try await post(entry, in: transaction) }
    }

    /// Records `entry` unless an entry of its reference is recorded already; returns whether it
    /// recorded it. An entry whose postings do not add up to zero is refused. It takes the lock of
    /// each store and courier it moves money of (in one order, so that two entries never wait on
    /// each other).
    @discardableResult
    func post(_ entry: LedgerEntry, in transaction: Transaction) async throws -> Bool {
        guard entry.isBalanced else {
            throw OrderlyError(.internal, "a ledger entry of \(entry.reference) does not balance")
        }
        try await transaction.lock(Self.locks(of: entry))
        let stamp = entry.createdAt.millisecondsSince1970
        let inserted = try await transaction.sql.raw(
            """
            INSERT INTO ledger_entries (id, reference, created_at, doc)
            VALUES (\(bind: entry.id.lowercasedText), \(bind: entry.reference), \(bind: stamp),
                \(bind: try StoredDocument.text(entry)))
            ON CONFLICT (reference) DO NOTHING RETURNING id
            """
        ).all()
        guard !inserted.isEmpty, !entry.postings.isEmpty else { return !inserted.isEmpty }
        var postings: SQLQueryString = "INSERT INTO ledger_postings (account, created_at, id, currency, amount) VALUES "
        for (index, posting) in entry.postings.enumerated() {
            let values: [any Encodable & Sendable] = [
                posting.account, stamp, entry.id.lowercasedText, entry.currency.code, posting.amount,
            ]
            postings = postings + (index == 0 ? "" : ", ") + "(\(binds: values))"
        }
        try await transaction.sql.raw(postings).run()
        for posting in entry.postings where LedgerAccount(key: posting.account)?.holder != nil {
            try await transaction.sql.raw(
                """
                INSERT INTO ledger_balances (account, currency, balance)
                VALUES (\(bind: posting.account), \(bind: entry.currency.code), \(bind: posting.amount))
                ON CONFLICT (account, currency) DO UPDATE SET balance = ledger_balances.balance + excluded.balance
                """
            ).run()
        }
        return true
    }

    /// The entry recorded for `reference`, if there is one.
    func entry(_ reference: String, in sql: any SQLDatabase) async throws -> LedgerEntry? {
        try await sql.raw("SELECT doc FROM ledger_entries WHERE reference = \(bind: reference)").first()
            .map { try StoredDocument.decode(LedgerEntry.self, from: $0) }
    }

    /// The holder's balances per currency, the credits to what they earned since `heldSince`
    /// counted as pending (none without a hold).
    func balances(of holder: Ledger.Holder, heldSince: Date?, in sql: any SQLDatabase) async throws
        -> [CurrencyBalance]
    {
        let (earned, cash) = Ledger.accounts(of: holder)
        var figures: [String: CurrencyBalance] = [:]
        let rows = try await sql.raw(
            """
            SELECT account, currency, balance FROM ledger_balances
            WHERE account IN (\(bind: earned.key), \(bind: cash.key))
            """
        ).all()
        for row in rows {
            let currency = try row.decode(column: "currency", as: String.self)
            let balance = try row.decode(column: "balance", as: Int64.self)
            guard let code = CurrencyCode(currency) else {
                throw StorageError.unexpected("a ledger balance's currency is not a currency code")
            }
            var figure = figures[currency] ?? CurrencyBalance(currency: code)
            if try row.decode(column: "account", as: String.self) == earned.key {
                figure.earned = balance
            } else {
                figure.cashHeld = -balance
            }
            figures[currency] = figure
        }
        guard let heldSince else { return figures.values.sorted { $0.currency.code < $1.currency.code } }
        let recent = try await sql.raw(
            """
            SELECT currency, CAST(SUM(amount) AS BIGINT) AS credited FROM ledger_postings
            WHERE account = \(bind: earned.key) AND created_at >= \(bind: heldSince.millisecondsSince1970) AND amount > 0
            GROUP BY currency
            """
        ).all()
        for row in recent {
            let currency = try row.decode(column: "currency", as: String.self)
            figures[currency]?.held(try row.decode(column: "credited", as: Int64.self))
        }
        return figures.values.sorted { $0.currency.code < $1.currency.code }
    }

    /// The entries that moved the holder's money, newest first, each with what it moved.
    func entries(
        of holder: Ledger.Holder, after cursor: KeysetCursor?, limit: Int, counting: Bool, in sql: any SQLDatabase
    ) async throws -> (entries: [AccountEntry], next: String?, total: ListTotal?) {
        let (earned, cash) = Ledger.accounts(of: holder)
        var query: SQLQueryString = """
            SELECT p.id, p.created_at, CAST(SUM(p.amount) AS BIGINT) AS moved, MAX(e.doc) AS doc
            FROM ledger_postings p JOIN ledger_entries e ON e.id = p.id
            WHERE p.account IN (\(bind: earned.key), \(bind: cash.key))
            """
        if let cursor {
            query = query + " AND (p.created_at, p.id) < (\(bind: cursor.key), \(bind: cursor.id))"
        }
        query =
            query + " GROUP BY p.created_at, p.id ORDER BY p.created_at DESC, p.id DESC LIMIT \(bind: limit + 1)"
        let rows = try await sql.raw(query).all()
        let entries = try rows.prefix(limit).map { row in
            AccountEntry(
                amount: try row.decode(column: "moved", as: Int64.self),
                entry: try StoredDocument.decode(LedgerEntry.self, from: row))
        }
        let next =
            rows.count > limit
            ? KeysetCursor(
                key: try rows[limit - 1].decode(column: "created_at", as: Int64.self),
                id: try rows[limit - 1].decode(column: "id", as: String.self)
            ).token : nil
        guard counting else { return (entries, next, nil) }
        let source: SQLQueryString =
            "ledger_postings WHERE account IN (\(bind: earned.key), \(bind: cash.key)) GROUP BY id"
        return (entries, next, try await KeysetCursor.total(of: source, in: sql))
    }

    /// The sum of every posting to `account` per currency: what the platform's own accounts
    /// hold, and a check of any other against its kept balance.
    func sum(of account: LedgerAccount, in sql: any SQLDatabase) async throws -> [String: Int64] {
        let rows = try await sql.raw(
            """
            SELECT currency, CAST(SUM(amount) AS BIGINT) AS total FROM ledger_postings
            WHERE account = \(bind: account.key) GROUP BY currency
            """
        ).all()
        var sums: [String: Int64] = [:]
        for row in rows {
            sums[try row.decode(column: "currency", as: String.self)] = try row.decode(column: "total", as: Int64.self)
        }
        return sums
    }

    func insert(_ payout: Payout, in transaction: Transaction) async throws {
        try await transaction.sql.raw(
            """
            INSERT INTO payouts (id, created_at, doc)
            VALUES (\(bind: payout.id.description), \(bind: payout.createdAt.millisecondsSince1970),
                \(bind: try StoredDocument.text(payout)))
            """
        ).run()
    }
}
