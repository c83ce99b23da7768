package import Contracts
package import Domain
import Foundation
import SQLKit
package import Storage

/// All SQL of the orders service: orders and their history. Public for the order-list
/// benchmark of the `orderly` command.
package struct OrdersRepository: Sendable {
    let database: Database

    package init(database: Database) { self.database = database }

    /// Inserts `order`; returns the JSON stored for it.
    @discardableResult
    package func insert(_ order: Order, in transaction: Transaction) async throws -> String {
        let changeSequence = try await transaction.nextSequence("orders.changes")
        let document = try StoredDocument.text(order)
        try await transaction.sql.raw(
            """
            INSERT INTO orders (id, store_id, number, fulfillment, workflow, status, courier_id, created_by,
                created_at, updated_at, due_key, delivered_at, delivery_fee, tip, cash_collected, pay_by, currency,
                search, search_phone, change_seq, version, doc)
            VALUES (\(bind: order.id.description), \(bind: order.storeID.description), \(bind: order.number),
                \(bind: order.fulfillment.rawValue), \(bind: (order.workflow ?? .standard).rawValue),
                \(bind: order.status.rawValue), \(bind: order.courierID?.description),
                \(bind: order.createdBy.description),
                \(bind: order.createdAt.millisecondsSince1970), \(bind: order.updatedAt.millisecondsSince1970),
                \(bind: Self.dueKey(order)), \(bind: order.deliveredAt?.millisecondsSince1970),
                \(bind: order.deliveryFee), \(bind: order.tip ?? 0), \(bind: order.cashCollected ?? 0),
                \(bind: Self.payBy(order)), \(bind: order.currency.description), \(bind: Self.searchText(order)),
                \(bind: Self.searchPhone(order)), \(bind: changeSequence), \(bind: order.version), \(bind: document))
            """
        ).run()
        return document
    }

    /// Writes a changed order if it is still at `previousVersion`; false when another change
    /// came first. `leftPool` marks an order couriers could take and now cannot; `releasedBy`
    /// the courier who just released it.
    func update(
        _ order: Order, previousVersion: Int64, leftPool: Bool, releasedBy: UserID?, in transaction: Transaction
    ) async throws -> Bool {
        let changeSequence = try await transaction.nextSequence("orders.changes")
        var query: SQLQueryString = """
            UPDATE orders SET fulfillment = \(bind: order.fulfillment.rawValue), status = \(bind: order.status.rawValue),
                courier_id = \(bind: order.courierID?.description),
                updated_at = \(bind: order.updatedAt.millisecondsSince1970), due_key = \(bind: Self.dueKey(order)),
                delivered_at = \(bind: order.deliveredAt?.millisecondsSince1970),
                archived_at = \(bind: order.archivedAt?.millisecondsSince1970),
                delivery_fee = \(bind: order.deliveryFee), tip = \(bind: order.tip ?? 0),
                cash_collected = \(bind: order.cashCollected ?? 0), pay_by = \(bind: Self.payBy(order)),
                search = \(bind: Self.searchText(order)),
                search_phone = \(bind: Self.searchPhone(order)),
                change_seq = \(bind: changeSequence), version = \(bind: order.version),
                doc = \(bind: try StoredDocument.text(order))
            """
        if leftPool { query = query + ", left_pool_seq = \(bind: changeSequence)" }
        if let releasedBy { query = query + ", released_by = \(bind: releasedBy.description)" }
        let row = try await transaction.sql.raw(
            query
                + """
                 WHERE store_id = \(bind: order.storeID.description) AND id = \(bind: order.id.description)
                    AND version = \(bind: previousVersion) RETURNING id
                """
        ).first()
        return row != nil
    }

    func find(_ id: OrderID, in sql: any SQLDatabase) async throws -> Order? {
        try await sql.raw("SELECT doc FROM orders WHERE id = \(bind: id.description)").first()
            .map { try StoredDocument.decode(Order.self, from: $0) }
    }

    /// Records a change of an order of `store`, beside it: the history is partitioned by store
    /// with the orders (docs/SCALING.md).
    func appendHistory(_ entry: OrderHistoryEntry, of store: StoreID, in transaction: Transaction) async throws {
        try await transaction.sql.raw(
            """
            INSERT INTO order_history (store_id, order_id, seq, doc)
            VALUES (\(bind: store.description), \(bind: entry.orderID.description), \(bind: entry.seq),
                \(bind: try StoredDocument.text(entry)))
            """
        ).run()
    }

    /// The order's history after entry `after`, oldest first; with `counting`, how many entries
    /// it holds in all.
    func history(of id: OrderID, after: Int64, limit: Int, counting: Bool) async throws -> Page<OrderHistoryEntry> {
        try await database.read { sql in
            let rows = try await sql.raw(
                """
                SELECT doc, seq FROM order_history WHERE order_id = \(bind: id.description) AND seq > \(bind: after)
                ORDER BY seq LIMIT \(bind: limit + 1)
                """
            ).all()
            let entries = try rows.prefix(limit).map { try StoredDocument.decode(OrderHistoryEntry.self, from: $0) }
            let total =
                counting
                ? try await KeysetCursor.total(of: "order_history WHERE order_id = \(bind: id.description)", in: sql)
                : nil
            return Page(
                data: entries, nextCursor: rows.count > limit ? entries.last.map { String($0.seq) } : nil, total: total)
        }
    }

    /// The SQL condition, to follow `WHERE`, selecting the orders in `scope`
    /// (`OrderScope.contains`).
    static func condition(_ scope: OrderScope) -> SQLQueryString {
        switch scope {
        case .every: return "1 = 1"
        case .store(let store): return "store_id = \(bind: store.description)"
        case .courier(let courier, let pool):
            let own: SQLQueryString = "courier_id = \(bind: courier.description)"
            return pool ? "(" + own + " OR " + inPool + ")" : own
        case .createdBy(let user): return "created_by = \(bind: user.description)"
        case .none: return "1 = 0"
        }
    }

    /// The pool (`OrderPool`), as a condition on the columns it reads, written with the code's
    /// own values as literals, as the partial index `orders_in_pool` is: a database uses a partial
    /// index only for a query whose condition says what the index's does.
    static let poolCondition =
        "courier_id IS NULL AND fulfillment = '\(OrderPool.fulfillment.rawValue)' AND workflow = '"
        + OrderPool.workflow.rawValue + "' AND status IN ("
        + OrderPool.statuses.map { "'\($0.rawValue)'" }.sorted().joined(separator: ", ") + ")"
    static let inPool = SQLQueryString("(" + poolCondition + ")")

    /// What narrows a list within its scope; times in milliseconds, `to` exclusive.
    package struct Filter: Sendable {
        package var statuses: [OrderStatus] = []
        package var fulfillment: Fulfillment?
        package var courierID: UserID?
        /// Only the pool: what a courier can claim now.
        package var poolOnly = false
        package var createdFrom: Int64?
        package var createdTo: Int64?
        package var dueFrom: Int64?
        package var dueTo: Int64?
        package var search: String?
        /// A search that may match phone digits matches only the orders this courier carries.
        package var phoneSearchLimitedTo: UserID?
        /// Only the orders of this store.
        package var storeID: StoreID?
        /// The archived orders alone; otherwise those not archived.
        package var archived = false

        package init(
            statuses: [OrderStatus] = [], fulfillment: Fulfillment? = nil, courierID: UserID? = nil,
            poolOnly: Bool = false, createdFrom: Int64? = nil, createdTo: Int64? = nil, dueFrom: Int64? = nil,
            dueTo: Int64? = nil, search: String? = nil
        ) {
            self.statuses = statuses
            self.fulfillment = fulfillment
            self.courierID = courierID
            self.poolOnly = poolOnly
            self.createdFrom = createdFrom
            self.createdTo = createdTo
            self.dueFrom = dueFrom
            self.dueTo = dueTo
            self.search = search
        }
    }

    /// Orders in `scope` that pass `filter`, in `sort` order, a keyset page at a time. A
    /// courier's own orders and the pool are read apart, each through its own index, and merged:
    /// read as one condition, a database walks every order newest first until a page is found.
    package func list(
        _ scope: OrderScope, _ filter: Filter, sort: OrderSort, after cursor: KeysetCursor?, limit: Int,
        counting: Bool = false
    ) async throws -> Page<Order> {
        let key = sort == .newest || sort == .oldest ? "created_at" : "due_key"
        let descending = sort == .newest || sort == .dueLatest
        return try await database.read { sql in
            var rows: [any SQLRow]
            var total: ListTotal?
            if case .courier(let courier, pool: true) = scope, !filter.poolOnly {
                var pool = filter
                pool.poolOnly = true
                let ownSource = Self.source(.courier(courier, pool: false), filter)
                let poolSource = Self.source(scope, pool)
                let own = try await Self.rows(
                    ownSource, key: key, descending: descending, after: cursor, limit: limit, sql: sql)
                let claimable = try await Self.rows(
                    poolSource, key: key, descending: descending, after: cursor, limit: limit, sql: sql)
                if counting {
                    // The pool holds no order with a courier, so the two lists are apart.
                    total =
                        try await KeysetCursor.total(of: ownSource, in: sql)
                        + KeysetCursor.total(of: poolSource, in: sql)
                }
                rows = try (own + claimable).map { (try KeysetCursor(row: $0, key: key), $0) }
                    .sorted { first, second in
                        let (a, b) = (first.0, second.0)
                        return descending ? (a.key, a.id) > (b.key, b.id) : (a.key, a.id) < (b.key, b.id)
                    }
                    .prefix(limit + 1).map(\.1)
            } else {
                let source = Self.source(scope, filter)
                rows = try await Self.rows(
                    source, key: key, descending: descending, after: cursor, limit: limit, sql: sql)
                if counting { total = try await KeysetCursor.total(of: source, in: sql) }
            }
            let page = try KeysetCursor.page(rows, limit: limit, as: Order.self, key: key)
            return Page(data: page.items, nextCursor: page.next, total: total)
        }
    }

    /// Up to `limit + 1` rows (`doc`, `key`, `id`) of `source`'s page after `cursor`.
    private static func rows(
        _ source: SQLQueryString, key: String, descending: Bool, after cursor: KeysetCursor?, limit: Int,
        sql: any SQLDatabase
    ) async throws -> [any SQLRow] {
        try await sql.raw(
            "SELECT doc, " + SQLQueryString(key) + ", id FROM " + source
                + KeysetCursor.pageClause(after: cursor, limit: limit, descending: descending, key: key)
        ).all()
    }

    /// The orders in `scope` that pass `filter`: the table and its condition.
    private static func source(_ scope: OrderScope, _ filter: Filter) -> SQLQueryString {
        var query: SQLQueryString = "orders WHERE " + condition(scope)
        if !filter.statuses.isEmpty {
            query = query + " AND status IN (" + .boundList(filter.statuses.map(\.rawValue)) + ")"
        }
        if let store = filter.storeID { query = query + " AND store_id = \(bind: store.description)" }
        if let fulfillment = filter.fulfillment {
            query = query + " AND fulfillment = \(bind: fulfillment.rawValue)"
        }
        if let courier = filter.courierID { query = query + " AND courier_id = \(bind: courier.description)" }
        if filter.poolOnly { query = query + " AND " + inPool }
        query = query + (filter.archived ? " AND archived_at IS NOT NULL" : " AND archived_at IS NULL")
        if let from = filter.createdFrom { query = query + " AND created_at >= \(bind: from)" }
        if let to = filter.createdTo { query = query + " AND created_at < \(bind: to)" }
        if let from = filter.dueFrom { query = query + " AND due_key >= \(bind: from)" }
        if let to = filter.dueTo { query = query + " AND due_key < \(bind: to)" }
        if let search = filter.search, let text = searchPattern(search) {
            var matches: SQLQueryString = "search LIKE \(bind: text) ESCAPE '\\'"
            if let digits = SearchPattern.phone(search) {
                var phone: SQLQueryString = "search_phone LIKE \(bind: digits) ESCAPE '\\'"
                if let courier = filter.phoneSearchLimitedTo {
                    phone = phone + " AND courier_id = \(bind: courier.description)"
                }
                matches = matches + " OR (" + phone + ")"
            }
            query = query + " AND (" + matches + ")"
        }
        return query
    }

    /// Orders that changed after change `since` and are in `scope` now or, for a courier, may
    /// have left their sight meanwhile (it left the pool, or they released it); oldest change
    /// first. Also returns the last change read and whether more follow.
    func changes(_ scope: OrderScope, since: Int64, limit: Int) async throws -> (
        orders: [Order], last: Int64, hasMore: Bool
    ) {
        try await database.read { sql in
            var condition = Self.condition(scope)
            if case .courier(let courier, let pool) = scope {
                condition = "(" + condition + " OR released_by = \(bind: courier.description)"
                condition = condition + (pool ? " OR left_pool_seq > \(bind: since))" : ")")
            }
            let rows = try await sql.raw(
                "SELECT doc, change_seq FROM orders WHERE change_seq > \(bind: since) AND " + condition
                    + " ORDER BY change_seq LIMIT \(bind: limit + 1)"
            ).all()
            let page = try KeysetCursor.changes(rows, limit: limit, since: since, as: Order.self)
            return (page.items, page.last, page.hasMore)
        }
    }

    /// A courier's deliveries in [`from`, `to`) per day of `zone` and currency, oldest first:
    /// count, fees, tips and cash collected.
    func earnings(of courier: UserID, from: Int64, to: Int64, in zone: TimeZone) async throws -> [Earnings.Day] {
        let rows = try await database.read { sql in
            try await sql.raw(
                """
                SELECT delivered_at, currency, delivery_fee, tip, cash_collected
                FROM orders
                WHERE courier_id = \(bind: courier.description) AND delivered_at >= \(bind: from)
                    AND delivered_at < \(bind: to) AND status = 'delivered'
                ORDER BY delivered_at
                """
            ).all()
        }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        // By day of the zone, then by currency; the rows come oldest first, so the days do too.
        var days: [Earnings.Day] = []
        for row in rows {
            guard let currency = CurrencyCode(try row.decode(column: "currency", as: String.self)) else {
                throw StorageError.unexpected("an order's currency could not be read")
            }
            let at = Date(millisecondsSince1970: try row.decode(column: "delivered_at", as: Int64.self))
            let parts = calendar.dateComponents([.year, .month, .day], from: at)
            let date = String(format: "%04d-%02d-%02d", parts.year ?? 1970, parts.month ?? 1, parts.day ?? 1)
            let fee = try row.decode(column: "delivery_fee", as: Int64.self)
            let tip = try row.decode(column: "tip", as: Int64.self)
            let cash = try row.decode(column: "cash_collected", as: Int64.self)
            if days.last?.date != date { days.append(Earnings.Day(date: date, totals: [])) }
            var totals = days[days.count - 1].totals
            if let index = totals.firstIndex(where: { $0.currency == currency }) {
                totals[index].deliveries += 1
                totals[index].deliveryFees += fee
                totals[index].tips += tip
                totals[index].cashCollected += cash
            } else {
                totals.append(
                    Earnings.Total(currency: currency, deliveries: 1, deliveryFees: fee, tips: tip, cashCollected: cash)
                )
                totals.sort { $0.currency.code < $1.currency.code }
            }
            days[days.count - 1].totals = totals
        }
        return days
    }

    /// The orders `user` created, oldest first: a customer's own orders.
    func ids(createdBy user: UserID, in sql: any SQLDatabase) async throws -> [OrderID] {
        try await sql.raw(
            "SELECT id FROM orders WHERE created_by = \(bind: user.description) ORDER BY created_at, id"
        ).all().compactMap { OrderID(try $0.decode(column: "id", as: String.self)) }
    }

    /// How many card orders `customer` has not paid yet (pending, their time to be paid running).
    func unpaidCount(of customer: UserID, in sql: any SQLDatabase) async throws -> Int {
        let row = try await sql.raw(
            """
            SELECT COUNT(*) AS unpaid FROM orders
            WHERE created_by = \(bind: customer.description) AND pay_by IS NOT NULL
            """
        ).first()
        return try row?.decode(column: "unpaid", as: Int.self) ?? 0
    }

    /// The unpaid card orders whose time to be paid ran out by `now`, at most `limit`.
    func unpaid(at now: Date, limit: Int) async throws -> [OrderID] {
        try await database.read { sql in
            try await sql.raw(
                """
                SELECT id FROM orders WHERE pay_by IS NOT NULL AND pay_by <= \(bind: now.millisecondsSince1970)
                ORDER BY pay_by LIMIT \(bind: limit)
                """
            ).all().map { row in
                guard let id = OrderID(try row.decode(column: "id", as: String.self)) else {
                    throw StorageError.unexpected("an order's id could not be read")
                }
                return id
            }
        }
    }

    // MARK: Columns

    /// When a pending card order not paid yet is cancelled, in milliseconds; nil for every other.
    static func payBy(_ order: Order) -> Int64? {
        order.status == .pending && order.awaitsPayment ? order.payBy?.millisecondsSince1970 : nil
    }

    /// `due_at` in milliseconds; orders without one sort after every dated one.
    static func dueKey(_ order: Order) -> Int64 { order.dueAt?.millisecondsSince1970 ?? Int64.max }

    /// What a search matches in every order the caller sees: the number and the recipient's
    /// and customer's names, lower-cased.
    static func searchText(_ order: Order) -> String {
        let names = [order.recipientFirstName, order.recipientLastName, order.customerName].compactMap { $0 }
        return (["#\(order.number)"] + names).joined(separator: " ").lowercased()
    }

    /// What a phone-like search matches, in the orders whose phone the caller may see: the
    /// recipient's phone digits.
    static func searchPhone(_ order: Order) -> String { SearchPattern.digits(order.phone ?? "") }

    /// The `LIKE` pattern of a search in `search`: the lower-cased text; nil when nothing is
    /// left to match.
    static func searchPattern(_ query: String) -> String? {
        SearchPattern.containing(query.trimmingCharacters(in: .whitespaces).lowercased())
    }

    /// How many orders `courier` carries now: claimed, not yet delivered or cancelled. The
    /// status condition is the partial index `orders_carried`'s word for word, literals and
    /// all, which is what lets SQLite use it.
    func carried(by courier: UserID, in sql: any SQLDatabase) async throws -> Int {
        try await sql.raw(
            """
            SELECT COUNT(*) AS carried FROM orders WHERE courier_id = \(bind: courier.description)
            AND status IN ('accepted', 'preparing', 'ready', 'out_for_delivery')
            """
        ).first()?.decode(column: "carried", as: Int.self) ?? 0
    }

    /// How many orders `courier` released since `since`.
    func releases(by courier: UserID, since: Date, in sql: any SQLDatabase) async throws -> Int {
        try await sql.raw(
            """
            SELECT COUNT(*) AS released FROM order_releases WHERE courier_id = \(bind: courier.description)
            AND released_at >= \(bind: since.millisecondsSince1970)
            """
        ).first()?.decode(column: "released", as: Int.self) ?? 0
    }

    /// Counts a release of an order by `courier` at `time`.
    func recordRelease(by courier: UserID, at time: Date, in transaction: Transaction) async throws {
        try await transaction.sql.raw(
            """
            INSERT INTO order_releases (courier_id, released_at)
            VALUES (\(bind: courier.description), \(bind: time.millisecondsSince1970))
            """
        ).run()
    }

    /// Deletes the releases counted before `before`; returns how many.
    func removeReleases(before: Date) async throws -> Int {
        try await database.deleteRows(
            of: "order_releases", where: "released_at", below: before.millisecondsSince1970)
    }

    /// Records what `payment` (at its version) pays of the order, unless a later version of it
    /// was recorded; returns the order's total paid, or nil when this changed nothing.
    func recordPayment(
        _ amount: Int64, of payment: Payment, for order: OrderID, in transaction: Transaction
    ) async throws -> Int64? {
        let known = try await transaction.sql.raw(
            "SELECT version FROM order_payments WHERE payment_id = \(bind: payment.id.description)"
        ).first()?.decode(column: "version", as: Int64.self)
        if let known, known >= payment.version { return nil }
        try await transaction.sql.raw(
            """
            INSERT INTO order_payments (payment_id, order_id, version, amount)
            VALUES (\(bind: payment.id.description), \(bind: order.description), \(bind: payment.version), \(bind: amount))
            ON CONFLICT (payment_id) DO UPDATE SET version = excluded.version, amount = excluded.amount
            """
        ).run()
        return try await transaction.sql.raw(
            "SELECT CAST(SUM(amount) AS BIGINT) AS paid FROM order_payments WHERE order_id = \(bind: order.description)"
        ).first()?.decode(column: "paid", as: Int64?.self) ?? 0
    }
}
