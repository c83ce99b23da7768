import Domain
import SQLKit
import Storage

/// The orders service's tables. `doc` holds the whole order as JSON; the other columns are what
/// queries filter and sort on. `change_seq` orders changes for the offline sync feed;
/// `left_pool_seq` is the change at which an order last left the couriers' pool (claimed,
/// cancelled, made a pickup), and `released_by` the courier who last released it, so that
/// couriers' feeds can tell them it is gone.
/// `due_key` is `due_at` with orders that have none sorting last; `search` is the lower-cased
/// text a search matches (number, names), `search_phone` the recipient's phone digits, matched
/// apart so that only those who may see an order's phone find it by its digits.
/// `order_history` keeps one row per change, numbered by the order's version and naming its
/// store; `order_releases` one per release by a courier, counted against their daily limit.
/// `archived_at` is when the store archived the order, which takes it off the lists; `workflow`
/// the status machine it follows, which the pool's condition reads.
enum OrdersSchema {
    static let migrations = [
        Migration(
            1, "orders",
            sql: [
                """
                CREATE TABLE orders (
                    id TEXT PRIMARY KEY,
                    store_id TEXT NOT NULL,
                    number BIGINT NOT NULL,
                    fulfillment TEXT NOT NULL,
                    status TEXT NOT NULL,
                    courier_id TEXT,
                    created_by TEXT NOT NULL,
                    created_at BIGINT NOT NULL,
                    updated_at BIGINT NOT NULL,
                    change_seq BIGINT NOT NULL,
                    version BIGINT NOT NULL,
                    doc TEXT NOT NULL
                )
                """,
                "CREATE UNIQUE INDEX orders_number ON orders (store_id, number)",
                "CREATE INDEX orders_by_store ON orders (store_id, created_at, id)",
                "CREATE INDEX orders_by_creation ON orders (created_at, id)",
                "CREATE INDEX orders_by_courier ON orders (courier_id, created_at, id)",
                "CREATE INDEX orders_by_creator ON orders (created_by, created_at, id)",
            ]),
        Migration(
            2, "order lifecycle: history, filters, change feed, earnings",
            sql: [
                "ALTER TABLE orders ADD COLUMN due_key BIGINT NOT NULL DEFAULT 9223372036854775807",
                "ALTER TABLE orders ADD COLUMN delivered_at BIGINT",
                "ALTER TABLE orders ADD COLUMN delivery_fee BIGINT NOT NULL DEFAULT 0",
                "ALTER TABLE orders ADD COLUMN currency TEXT NOT NULL DEFAULT ''",
                "ALTER TABLE orders ADD COLUMN left_pool_seq BIGINT NOT NULL DEFAULT 0",
                "ALTER TABLE orders ADD COLUMN search TEXT NOT NULL DEFAULT ''",
                """
                CREATE TABLE order_history (
                    order_id TEXT NOT NULL,
                    seq BIGINT NOT NULL,
                    doc TEXT NOT NULL,
                    PRIMARY KEY (order_id, seq)
                )
                """,
                "CREATE INDEX orders_by_store_status ON orders (store_id, status, created_at, id)",
                "CREATE INDEX orders_by_store_due ON orders (store_id, due_key, id)",
                "CREATE INDEX orders_by_due ON orders (due_key, id)",
                "CREATE INDEX orders_by_change ON orders (change_seq)",
                "CREATE INDEX orders_by_store_change ON orders (store_id, change_seq)",
                "CREATE INDEX orders_by_delivery ON orders (courier_id, delivered_at)",
            ]),
        Migration(
            3, "the courier who last released an order",
            sql: ["ALTER TABLE orders ADD COLUMN released_by TEXT"]),
        // What each completed payment of an order pays of it now (the orders service's
        // `PaidAmountsFollower`), by the payment's latest version.
        Migration(
            4, "order payments",
            sql: [
                """
                CREATE TABLE order_payments (
                    payment_id TEXT PRIMARY KEY,
                    order_id TEXT NOT NULL,
                    version BIGINT NOT NULL,
                    amount BIGINT NOT NULL
                )
                """,
                "CREATE INDEX order_payments_by_order ON order_payments (order_id)",
            ]),
        // The phone's digits out of `search`, which couriers search in every order of the pool;
        // the orders a courier carries, counted at each claim; and each courier's releases.
        Migration(5, "phone digits searched apart, couriers' claims and releases counted") { transaction in
            for statement in [
                "ALTER TABLE orders ADD COLUMN search_phone TEXT NOT NULL DEFAULT ''",
                """
                CREATE INDEX orders_carried ON orders (courier_id)
                WHERE status IN ('accepted', 'preparing', 'ready', 'out_for_delivery')
                """,
                "CREATE TABLE order_releases (courier_id TEXT NOT NULL, released_at BIGINT NOT NULL)",
                "CREATE INDEX order_releases_by_courier ON order_releases (courier_id, released_at)",
            ] {
                try await transaction.sql.raw(SQLQueryString(statement)).run()
            }
            var after = ""
            while true {
                let rows = try await transaction.sql.raw(
                    "SELECT id, doc FROM orders WHERE id > \(bind: after) ORDER BY id LIMIT 1000"
                ).all()
                guard let last = rows.last else { break }
                for row in rows {
                    let order = try StoredDocument.decode(Order.self, from: row)
                    try await transaction.sql.raw(
                        """
                        UPDATE orders SET search = \(bind: OrdersRepository.searchText(order)),
                            search_phone = \(bind: OrdersRepository.searchPhone(order))
                        WHERE id = \(bind: order.id.description)
                        """
                    ).run()
                }
                after = try last.decode(column: "id", as: String.self)
            }
        },
        // Customers' orders: the tip and the cash a courier collected, summed in their earnings,
        // and when an unpaid card order is cancelled, found by the sweep.
        Migration(
            6, "tips, cash collected and unpaid card orders",
            sql: [
                "ALTER TABLE orders ADD COLUMN tip BIGINT NOT NULL DEFAULT 0",
                "ALTER TABLE orders ADD COLUMN cash_collected BIGINT NOT NULL DEFAULT 0",
                "ALTER TABLE orders ADD COLUMN pay_by BIGINT",
                "CREATE INDEX orders_unpaid ON orders (pay_by) WHERE pay_by IS NOT NULL",
            ]),
        // A new order has no courier: the couriers' indexes skip orders without one, so creating
        // an order writes two entries fewer, and the pool (which read the orders without a
        // courier through them, every pickup and pending order too) has its own index of the
        // orders in it alone, written when an order enters the pool and removed when it leaves.
        Migration(
            7, "the pool indexed apart from the couriers' orders",
            sql: [
                "DROP INDEX orders_by_courier",
                "CREATE INDEX orders_by_courier ON orders (courier_id, created_at, id) WHERE courier_id IS NOT NULL",
                "DROP INDEX orders_by_delivery",
                "CREATE INDEX orders_by_delivery ON orders (courier_id, delivered_at) WHERE courier_id IS NOT NULL",
                """
                CREATE INDEX orders_in_pool ON orders (created_at, id)
                WHERE courier_id IS NULL AND fulfillment = 'delivery' AND status IN ('accepted', 'preparing', 'ready')
                """,
            ]),
        // An order's history beside it when the orders are partitioned by store, on one server or
        // across several (docs/SCALING.md): every row names its store.
        Migration(
            8, "the store of each history entry",
            sql: [
                "ALTER TABLE order_history ADD COLUMN store_id TEXT NOT NULL DEFAULT ''",
                """
                UPDATE order_history SET store_id = (SELECT store_id FROM orders WHERE orders.id = order_history.order_id)
                WHERE EXISTS (SELECT 1 FROM orders WHERE orders.id = order_history.order_id)
                """,
            ]),
        // A store archives a pending or cancelled order: lists leave it out (`archived_at IS
        // NULL`), and `archived=true` lists those alone. An earlier build lists them all.
        Migration(
            9, "archived orders", readers: .earlierBuilds,
            sql: ["ALTER TABLE orders ADD COLUMN archived_at BIGINT"]),
        // Repairs follow their own workflow and never enter the couriers' pool, so the pool's
        // condition and its index name the standard workflow. An earlier build still reads the
        // schema (its pool query, without the new condition, no longer uses the index), but not a
        // repair order's statuses.
        Migration(
            10, "the repair workflow", readers: .earlierBuilds,
            sql: [
                "ALTER TABLE orders ADD COLUMN workflow TEXT NOT NULL DEFAULT 'standard'",
                "DROP INDEX orders_in_pool",
                "CREATE INDEX orders_in_pool ON orders (created_at, id) WHERE " + OrdersRepository.poolCondition,
            ]),
    ]
}
