import Contracts
import Domain
import Foundation
import SQLKit
import Storage

/// The notifications service's SQL of the stores' activity feeds: each entry kept whole as JSON,
/// numbered per store (`seq`) in the order its events were applied.
struct ActivityRepository: Sendable {
    let database: Database

    /// Stores `entries` in order, each numbered after the last of its store; returns the last
    /// number each store reached.
    func insert(_ entries: [Activity], in transaction: Transaction) async throws -> [StoreID: Int64] {
        var last: [StoreID: Int64] = [:]
        for entry in entries {
            let seq = try await transaction.nextSequence("notifications.activity:\(entry.storeID)")
            try await transaction.sql.raw(
                """
                INSERT INTO activity (store_id, seq, at, doc)
                VALUES (\(bind: entry.storeID.description), \(bind: seq), \(bind: entry.at.millisecondsSince1970),
                    \(bind: try StoredDocument.text(entry)))
                """
            ).run()
            last[entry.storeID] = seq
        }
        return last
    }

    /// The store's entries after `after`, oldest first, at most `limit`, written in `reader`'s
    /// language.
    func list(of store: StoreID, after: Int64, limit: Int, for reader: UserID) async throws -> [ActivityEntry] {
        try await database.read { sql in
            let locale = try await NotificationsRepository.locale(of: reader, in: sql)
            return try await sql.raw(
                """
                SELECT seq, doc FROM activity WHERE store_id = \(bind: store.description) AND seq > \(bind: after)
                ORDER BY seq LIMIT \(bind: limit)
                """
            ).all().map { row in
                let entry = try StoredDocument.decode(Activity.self, from: row)
                return ActivityEntry(
                    seq: try row.decode(column: "seq", as: Int64.self), type: entry.type,
                    title: NotificationTexts.render(entry.titleKey, entry.args, locale: locale),
                    subtitle: NotificationTexts.render(entry.subtitleKey, entry.args, locale: locale),
                    amount: entry.amount, currency: entry.currency, at: entry.at, data: entry.data)
            }
        }
    }
}
