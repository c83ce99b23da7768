internal import Contracts
internal import Domain
internal import Foundation
internal import SQLKit
internal import Storage

/// Orders and their history in the orders service's database.
struct OrderRepository: Sendable {
    let database: Database

    static let openStatuses: [OrderStatus] = [.pending, .accepted, .preparing, .ready]
    /// The statuses a courier can claim from.
    static let claimableStatuses: [OrderStatus] = [.accepted, .preparing, .ready]

    /// Inserts `order`; returns the JSON stored for it, for the event that announces it.
    func insert(_ order: Order, in transaction: Transaction) async throws -> String {
        let changeSequence = try await transaction.nextSequence("orders.changes")
        let document = try StoredDocument.text(order)
        try await transaction.sql.raw(
            """
            INSERT INTO orders (id, store_id, number, fulfillment, status, courier_id, created_by, created_at,
                updated_at, due_key, delivered_at, delivery_fee, currency, search, change_seq, version, doc)
            VALUES (\(bind: order.id.description), \(bind: order.storeID.description), \(bind: order.number),
                \(bind: order.fulfillment.rawValue), \(bind: order.status.rawValue),
                \(bind: order.courierID?.description), \(bind: order.createdBy.description),
                \(bind: order.createdAt.millisecondsSince1970), \(bind: order.updatedAt.millisecondsSince1970),
                \(bind: Self.dueKey(order)), \(bind: order.deliveredAt?.millisecondsSince1970),
                \(bind: order.deliveryFee), \(bind: order.currency.description), \(bind: Self.searchText(order)),
                \(bind: changeSequence), \(bind: order.version), \(bind: document))
            """
        ).run()
        return document
    }

    /// Writes a changed order if it is still at `previousVersion` and returns the JSON stored
    /// for it; nil when another change came first. `leftPool` marks an order couriers could take
    /// and now cannot.
    func update(_ order: Order, previousVersion: Int64, leftPool: Bool, in transaction: Transaction) async throws
        -> String?
    {
        let changeSequence = try await transaction.nextSequence("orders.changes")
        let document = try StoredDocument.text(order)
        var query: SQLQueryString = """
            UPDATE orders SET fulfillment = \(bind: order.fulfillment.rawValue), status = \(bind: order.status.rawValue),
                courier_id = \(bind: order.courierID?.description),
                updated_at = \(bind: order.updatedAt.millisecondsSince1970), due_key = \(bind: Self.dueKey(order)),
                delivered_at = \(bind: order.deliveredAt?.millisecondsSince1970),
                delivery_fee = \(bind: order.deliveryFee), search = \(bind: Self.searchText(order)),
                change_seq = \(bind: changeSequence), version = \(bind: order.version),
                doc = \(bind: document)
            """
        if leftPool { query = query + ", left_pool_seq = \(bind: changeSequence)" }
        let row = try await transaction.sql.raw(
            query
                + " WHERE id = \(bind: order.id.description) AND version = \(bind: previousVersion) RETURNING id"
        ).first()
        return row == nil ? nil : document
    }

    func find(_ id: OrderID, in sql: any SQLDatabase) async throws -> Order? {
        try await findStored(id, in: sql)?.order
    }

    /// An order and the JSON it is stored as.
    struct StoredOrder: Sendable {
        var order: Order
        var document: String
    }

    func findStored(_ id: OrderID, in sql: any SQLDatabase) async throws -> StoredOrder? {
        guard let row = try await sql.raw("SELECT doc FROM orders WHERE id = \(bind: id.description)").first() else {
            return nil
        }
        let document = try row.decode(column: "doc", as: String.self)
        return StoredOrder(order: try StoredDocument.decode(Order.self, from: document), document: document)
    }

    /// Appends `entry`; returns the JSON stored for it.
    @discardableResult
    func appendHistory(_ entry: OrderHistoryEntry, in transaction: Transaction) async throws -> String {
        let document = try StoredDocument.text(entry)
        try await transaction.sql.raw(
            """
            INSERT INTO order_history (order_id, seq, doc)
            VALUES (\(bind: entry.orderID.description), \(bind: entry.seq), \(bind: document))
            """
        ).run()
        return document
    }

    /// The order's history after entry `after`, oldest first.
    func history(of id: OrderID, after: Int64, limit: Int) async throws -> Page<OrderHistoryEntry> {
        try await database.read { sql in
            let rows = try await sql.raw(
                """
                SELECT doc, seq FROM order_history WHERE order_id = \(bind: id.description) AND seq > \(bind: after)
                ORDER BY seq LIMIT \(bind: limit + 1)
                """
            ).all()
            let entries = try rows.prefix(limit).map { try StoredDocument.decode(OrderHistoryEntry.self, from: $0) }
            return Page(data: entries, nextCursor: rows.count > limit ? entries.last.map { String($0.seq) } : nil)
        }
    }

    /// Which orders a caller may list.
    enum Scope: Sendable {
        case all
        case store(StoreID)
        /// A courier: unclaimed delivery orders still open, and the courier's own.
        case courier(UserID)
        case createdBy(UserID)

        /// The SQL condition, to follow `WHERE`.
        var condition: SQLQueryString {
            switch self {
            case .all: return "1 = 1"
            case .store(let store): return "store_id = \(bind: store.description)"
            case .courier(let courier):
                return "(courier_id = \(bind: courier.description) OR " + OrderRepository.inPool + ")"
            case .createdBy(let user): return "created_by = \(bind: user.description)"
            }
        }
    }

    /// Unclaimed delivery orders that are still open: what every courier sees.
    static let inPool: SQLQueryString =
        "(courier_id IS NULL AND fulfillment = 'delivery' AND status IN ('pending', 'accepted', 'preparing', 'ready'))"

    /// What narrows a list within its scope; times in milliseconds, `to` exclusive.
    struct Filter: Sendable {
        var statuses: [OrderStatus] = []
        var fulfillment: Fulfillment?
        var courierID: UserID?
        var claimableOnly = false
        var createdFrom: Int64?
        var createdTo: Int64?
        var dueFrom: Int64?
        var dueTo: Int64?
        var search: String?
    }

    /// Orders in `scope` that pass `filter`, in `sort` order, a keyset page at a time.
    func list(_ scope: Scope, _ filter: Filter, sort: OrderSort, after cursor: KeysetCursor?, limit: Int)
        async throws -> Page<Order>
    {
        try await database.read { sql in
            let key = sort == .newest || sort == .oldest ? "created_at" : "due_key"
            var query: SQLQueryString =
                "SELECT doc, " + SQLQueryString(key) + ", id FROM orders WHERE " + scope.condition
            if !filter.statuses.isEmpty { query = query + " AND status IN (" + Self.list(filter.statuses) + ")" }
            if let fulfillment = filter.fulfillment {
                query = query + " AND fulfillment = \(bind: fulfillment.rawValue)"
            }
            if let courier = filter.courierID { query = query + " AND courier_id = \(bind: courier.description)" }
            if filter.claimableOnly {
                query =
                    query + " AND courier_id IS NULL AND fulfillment = 'delivery' AND status IN ("
                    + Self.list(Self.claimableStatuses) + ")"
            }
            if let from = filter.createdFrom { query = query + " AND created_at >= \(bind: from)" }
            if let to = filter.createdTo { query = query + " AND created_at < \(bind: to)" }
            if let from = filter.dueFrom { query = query + " AND due_key >= \(bind: from)" }
            if let to = filter.dueTo { query = query + " AND due_key < \(bind: to)" }
            if let search = filter.search.flatMap(Self.searchPattern) {
                query = query + " AND search LIKE \(bind: search) ESCAPE '\\'"
            }
            let descending = sort == .newest || sort == .dueLatest
            let rows = try await sql.raw(
                query + KeysetCursor.pageClause(after: cursor, limit: limit, descending: descending, key: key)
            ).all()
            let page = try KeysetCursor.page(rows, limit: limit, as: Order.self, key: key)
            return Page(data: page.items, nextCursor: page.next)
        }
    }

    /// Orders that changed after change `since` and are in `scope` now or, for a courier, were
    /// in the pool when the cursor was taken; oldest change first. Also returns the last change
    /// read and whether more follow.
    func changes(_ scope: Scope, since: Int64, limit: Int) async throws -> (
        orders: [Order], last: Int64, hasMore: Bool
    ) {
        try await database.read { sql in
            var condition = scope.condition
            if case .courier = scope { condition = "(" + condition + " OR left_pool_seq > \(bind: since))" }
            let rows = try await sql.raw(
                "SELECT doc, change_seq FROM orders WHERE change_seq > \(bind: since) AND " + condition
                    + " ORDER BY change_seq LIMIT \(bind: limit + 1)"
            ).all()
            let page = rows.prefix(limit)
            let orders = try page.map { try StoredDocument.decode(Order.self, from: $0) }
            let last = try page.last?.decode(column: "change_seq", as: Int64.self) ?? since
            return (orders, last, rows.count > limit)
        }
    }

    /// A courier's delivered orders in [`from`, `to`): count and fees per currency.
    func earnings(of courier: UserID, from: Int64, to: Int64) async throws -> [Earnings.Total] {
        try await database.read { sql in
            try await sql.raw(
                """
                SELECT currency, COUNT(*) AS deliveries, CAST(SUM(delivery_fee) AS BIGINT) AS fees FROM orders
                WHERE courier_id = \(bind: courier.description) AND delivered_at >= \(bind: from)
                    AND delivered_at < \(bind: to) AND status = 'delivered'
                GROUP BY currency ORDER BY currency
                """
            ).all().map { row in
                guard let currency = CurrencyCode(try row.decode(column: "currency", as: String.self)) else {
                    throw StorageError.unexpected("an order's currency could not be read")
                }
                return Earnings.Total(
                    currency: currency, deliveries: try row.decode(column: "deliveries", as: Int.self),
                    deliveryFees: try row.decode(column: "fees", as: Int64.self))
            }
        }
    }

    // MARK: Columns

    private static func list(_ statuses: [OrderStatus]) -> SQLQueryString {
        var list: SQLQueryString = ""
        for (index, status) in statuses.enumerated() {
            list = list + (index == 0 ? "" : ", ") + "\(bind: status.rawValue)"
        }
        return list
    }

    /// `due_at` in milliseconds; orders without one sort after every dated one.
    static func dueKey(_ order: Order) -> Int64 { order.dueAt?.millisecondsSince1970 ?? Int64.max }

    /// What a search matches: the number, the recipient's and customer's names, lower-cased,
    /// and the phone's digits.
    static func searchText(_ order: Order) -> String {
        let names = [order.recipientFirstName, order.recipientLastName, order.customerName].compactMap { $0 }
        return (["#\(order.number)"] + names + [digits(order.phone ?? "")]).joined(separator: " ").lowercased()
    }

    /// The `LIKE` pattern of a search: a phone-like query matches digits, anything else the
    /// lower-cased text; nil when nothing is left to match.
    static func searchPattern(_ query: String) -> String? {
        let trimmed = query.trimmingCharacters(in: .whitespaces).lowercased()
        let phoneLike = trimmed.unicodeScalars.allSatisfy {
            ("0"..."9").contains($0) || " +()-".unicodeScalars.contains($0)
        }
        let term = phoneLike && trimmed.count > 3 ? digits(trimmed) : trimmed
        guard !term.isEmpty else { return nil }
        let escaped = term.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%")
            .replacingOccurrences(of: "_", with: "\\_")
        return "%\(escaped)%"
    }

    private static func digits(_ text: String) -> String {
        String(text.unicodeScalars.filter { ("0"..."9").contains($0) }.map(Character.init))
    }
}
