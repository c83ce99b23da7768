internal import Contracts
internal import Domain
internal import Foundation
internal import SQLKit
internal import Storage

/// Orders in the orders service's database.
struct OrderRepository: Sendable {
    let database: Database

    func insert(_ order: Order, changeSequence: Int64, in transaction: Transaction) async throws {
        try await transaction.sql.raw(
            """
            INSERT INTO orders (id, store_id, number, fulfillment, status, courier_id, created_by, created_at,
                updated_at, change_seq, version, doc)
            VALUES (\(bind: order.id.description), \(bind: order.storeID.description), \(bind: order.number),
                \(bind: order.fulfillment.rawValue), \(bind: order.status.rawValue),
                \(bind: order.courierID?.description), \(bind: order.createdBy.description),
                \(bind: order.createdAt.millisecondsSince1970), \(bind: order.updatedAt.millisecondsSince1970),
                \(bind: changeSequence), \(bind: order.version), \(bind: try StoredDocument.text(order)))
            """
        ).run()
    }

    func find(_ id: OrderID, in sql: any SQLDatabase) async throws -> Order? {
        try await sql.raw("SELECT doc FROM orders WHERE id = \(bind: id.description)").first()
            .map { try StoredDocument.decode(Order.self, from: $0) }
    }

    /// Which orders a caller may list.
    enum Scope: Sendable {
        case all
        case store(StoreID)
        /// A courier: unclaimed delivery orders still open, and the courier's own.
        case courier(UserID)
        case createdBy(UserID)
    }

    /// Orders in `scope`, newest first.
    func list(
        _ scope: Scope, statuses: [OrderStatus]?, after cursor: KeysetCursor?, limit: Int
    ) async throws -> Page<Order> {
        try await database.read { sql in
            var query: SQLQueryString = "SELECT doc, created_at, id FROM orders WHERE "
            switch scope {
            case .all: query = query + "1 = 1"
            case .store(let store): query = query + "store_id = \(bind: store.description)"
            case .courier(let courier):
                query =
                    query + """
                        (courier_id = \(bind: courier.description) OR (courier_id IS NULL AND fulfillment = 'delivery'
                        AND status IN ('pending', 'accepted', 'preparing', 'ready')))
                        """
            case .createdBy(let user): query = query + "created_by = \(bind: user.description)"
            }
            if let statuses, !statuses.isEmpty {
                query = query + " AND status IN ("
                for (index, status) in statuses.enumerated() {
                    query = query + (index == 0 ? "" : ", ") + "\(bind: status.rawValue)"
                }
                query = query + ")"
            }
            let rows = try await sql.raw(query + KeysetCursor.pageClause(after: cursor, limit: limit, descending: true))
                .all()
            let page = try KeysetCursor.page(rows, limit: limit, as: Order.self)
            return Page(data: page.items, nextCursor: page.next)
        }
    }
}
