import Contracts
import Domain
import Foundation
import SQLKit
import Storage
import WireCodec

/// The SQL of webhooks: a store's endpoints (`webhooks`, each with its signing secret beside
/// the document, never in it) and every delivery to them (`webhook_deliveries`: the body as
/// sent, the document of how it went, and `due_at`, set while it waits to be tried).
struct WebhooksRepository: Sendable {
    let database: Database

    /// An endpoint and its secret.
    struct Endpoint: Sendable {
        var webhook: Webhook
        var secret: String
    }

    func insert(_ webhook: Webhook, secret: String, in transaction: Transaction) async throws {
        try await transaction.sql.raw(
            """
            INSERT INTO webhooks (id, store_id, active, events, secret, created_at, doc)
            VALUES (\(bind: webhook.id.description), \(bind: webhook.storeID.description), \(bind: webhook.active ? 1 : 0),
                \(bind: webhook.events.joined(separator: " ")), \(bind: secret),
                \(bind: webhook.createdAt.millisecondsSince1970), \(bind: try StoredDocument.text(webhook)))
            """
        ).run()
    }

    /// Stores `webhook` as it is now, with a new secret when given.
    func save(_ webhook: Webhook, secret: String? = nil, in transaction: Transaction) async throws {
        var update: SQLQueryString = """
            UPDATE webhooks SET active = \(bind: webhook.active ? 1 : 0), events = \(bind: webhook.events.joined(separator: " ")),
                doc = \(bind: try StoredDocument.text(webhook))
            """
        if let secret { update = update + ", secret = \(bind: secret)" }
        try await transaction.sql.raw(update + " WHERE id = \(bind: webhook.id.description)").run()
    }

    func find(_ id: WebhookID, in sql: any SQLDatabase) async throws -> Endpoint? {
        guard
            let row = try await sql.raw(
                "SELECT doc, secret FROM webhooks WHERE id = \(bind: id.description)"
            ).first()
        else { return nil }
        return Endpoint(
            webhook: try StoredDocument.decode(Webhook.self, from: row),
            secret: try row.decode(column: "secret", as: String.self))
    }

    /// Removes the endpoint and every delivery to it.
    func delete(_ id: WebhookID, in transaction: Transaction) async throws {
        try await transaction.sql.raw("DELETE FROM webhook_deliveries WHERE webhook_id = \(bind: id.description)").run()
        try await transaction.sql.raw("DELETE FROM webhooks WHERE id = \(bind: id.description)").run()
    }

    func count(of store: StoreID, in sql: any SQLDatabase) async throws -> Int {
        try await sql.raw("SELECT count(*) AS n FROM webhooks WHERE store_id = \(bind: store.description)").first()?
            .decode(column: "n", as: Int.self) ?? 0
    }

    func list(of store: StoreID, after cursor: KeysetCursor?, limit: Int, counting: Bool) async throws
        -> Page<Webhook>
    {
        try await database.read { sql in
            let page = try await KeysetCursor.list(
                Webhook.self, from: "webhooks WHERE store_id = \(bind: store.description)", after: cursor, limit: limit,
                counting: counting, in: sql)
            return Page(data: page.items, nextCursor: page.next, total: page.total)
        }
    }

    /// The active endpoints of `stores`, with the event types each hears of.
    func subscribers(of stores: Set<StoreID>, in transaction: Transaction) async throws -> [(
        id: WebhookID, store: StoreID, events: Set<String>
    )] {
        guard !stores.isEmpty else { return [] }
        return try await transaction.sql.raw(
            """
            SELECT id, store_id, events FROM webhooks
            WHERE active = 1 AND store_id IN (\(binds: stores.map(\.description).sorted()))
            """
        ).all().compactMap { row in
            guard let id = WebhookID(try row.decode(column: "id", as: String.self)),
                let store = StoreID(try row.decode(column: "store_id", as: String.self))
            else { return nil }
            let events = try row.decode(column: "events", as: String.self).split(separator: " ").map(String.init)
            return (id, store, Set(events))
        }
    }

    /// Stores a first delivery of `event` to each of `endpoints`, to be tried at `now`; answers them.
    @discardableResult
    func enqueue(
        _ event: WebhookEvent, to endpoints: [WebhookID], at now: Date, in transaction: Transaction
    ) async throws -> [WebhookDelivery] {
        let body = String(decoding: try WireJSON.encoder.encode(event), as: UTF8.self)
        let deliveries = endpoints.map {
            WebhookDelivery(
                id: WebhookDeliveryID(), webhookID: $0, eventID: event.id, eventType: event.type, status: .pending,
                attempts: 0, lastStatusCode: nil, lastError: nil, lastAttemptAt: nil, nextAttemptAt: now,
                deliveredAt: nil, createdAt: now)
        }
        try await enqueue(deliveries.map { ($0, body: body) }, in: transaction)
        return deliveries
    }

    /// Stores deliveries to be tried at once.
    func enqueue(_ deliveries: [(WebhookDelivery, body: String)], in transaction: Transaction) async throws {
        for (delivery, body) in deliveries {
            let at = delivery.createdAt.millisecondsSince1970
            try await transaction.sql.raw(
                """
                INSERT INTO webhook_deliveries (id, webhook_id, status, due_at, window_start, created_at, body, doc)
                VALUES (\(bind: delivery.id.description), \(bind: delivery.webhookID.description), 'pending', \(bind: at),
                    \(bind: at), \(bind: at), \(bind: body), \(bind: try StoredDocument.text(delivery)))
                """
            ).run()
        }
    }

    /// Up to `limit` deliveries due at `now`, soonest first, but none to the endpoints of
    /// `stores`.
    func due(at now: Date, limit: Int, excluding stores: Set<StoreID> = []) async throws -> [Due] {
        try await database.read { sql in
            var query: SQLQueryString = """
                SELECT d.id, w.store_id FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
                WHERE d.status = 'pending' AND d.due_at <= \(bind: now.millisecondsSince1970)
                """
            if !stores.isEmpty {
                query = query + " AND w.store_id NOT IN (" + .boundList(stores.map(\.description)) + ")"
            }
            return try await sql.raw(query + " ORDER BY d.due_at LIMIT \(bind: limit)").all().compactMap { row in
                guard let id = WebhookDeliveryID(try row.decode(column: "id", as: String.self)),
                    let store = StoreID(try row.decode(column: "store_id", as: String.self))
                else { return nil }
                return Due(id: id, store: store)
            }
        }
    }

    /// A delivery due, and the store whose endpoint it goes to.
    struct Due: Hashable, Sendable {
        var id: WebhookDeliveryID
        var store: StoreID
    }

    /// A delivery claimed for one attempt, with what sending it needs.
    struct Claimed: Sendable {
        var delivery: WebhookDelivery
        var body: String
        var windowStart: Date
        var endpoint: Endpoint
    }

    /// Claims `id` when it is still due at `now`, pushing its due time to `lease` so no other
    /// replica takes it meanwhile (if this one stops, it is tried again then).
    func claim(_ id: WebhookDeliveryID, at now: Date, lease: Date) async throws -> Claimed? {
        try await database.transaction { transaction in
            guard
                let row = try await transaction.sql.raw(
                    """
                    UPDATE webhook_deliveries SET due_at = \(bind: lease.millisecondsSince1970)
                    WHERE id = \(bind: id.description) AND status = 'pending' AND due_at <= \(bind: now.millisecondsSince1970)
                    RETURNING body, doc, window_start
                    """
                ).first()
            else { return nil }
            let delivery = try StoredDocument.decode(WebhookDelivery.self, from: row)
            guard let endpoint = try await find(delivery.webhookID, in: transaction.sql) else { return nil }
            return Claimed(
                delivery: delivery, body: try row.decode(column: "body", as: String.self),
                windowStart: Date(millisecondsSince1970: try row.decode(column: "window_start", as: Int64.self)),
                endpoint: endpoint)
        }
    }

    /// Stores how an attempt went: due again at `delivery.nextAttemptAt` while pending.
    func record(_ delivery: WebhookDelivery) async throws {
        try await database.transaction { try await record(delivery, in: $0) }
    }

    func record(_ delivery: WebhookDelivery, in transaction: Transaction) async throws {
        try await transaction.sql.raw(
            """
            UPDATE webhook_deliveries SET status = \(bind: delivery.status.rawValue),
                due_at = \(bind: delivery.status == .pending ? delivery.nextAttemptAt?.millisecondsSince1970 : nil),
                doc = \(bind: try StoredDocument.text(delivery))
            WHERE id = \(bind: delivery.id.description)
            """
        ).run()
    }

    /// Makes a delivery due now, with a new window of retries from now.
    func redeliver(_ delivery: WebhookDelivery, at now: Date, in transaction: Transaction) async throws {
        try await transaction.sql.raw(
            """
            UPDATE webhook_deliveries SET status = 'pending', due_at = \(bind: now.millisecondsSince1970),
                window_start = \(bind: now.millisecondsSince1970), doc = \(bind: try StoredDocument.text(delivery))
            WHERE id = \(bind: delivery.id.description)
            """
        ).run()
    }

    func delivery(_ id: WebhookDeliveryID, in sql: any SQLDatabase) async throws -> WebhookDelivery? {
        try await sql.raw("SELECT doc FROM webhook_deliveries WHERE id = \(bind: id.description)").first()
            .map { try StoredDocument.decode(WebhookDelivery.self, from: $0) }
    }

    func deliveries(of webhook: WebhookID, after cursor: KeysetCursor?, limit: Int, counting: Bool) async throws
        -> Page<WebhookDelivery>
    {
        try await database.read { sql in
            let page = try await KeysetCursor.list(
                WebhookDelivery.self, from: "webhook_deliveries WHERE webhook_id = \(bind: webhook.description)",
                descending: true, after: cursor, limit: limit, counting: counting, in: sql)
            return Page(data: page.items, nextCursor: page.next, total: page.total)
        }
    }
}
