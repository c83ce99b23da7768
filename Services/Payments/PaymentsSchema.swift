import Domain
import Foundation
import SQLKit
import Storage

/// The payments service's tables; `doc` holds each payment or receipt whole as JSON.
enum PaymentsSchema {
    static let migrations = [
        Migration(
            1, "payments and receipts",
            sql: [
                """
                CREATE TABLE payments (
                    id TEXT PRIMARY KEY,
                    store_id TEXT NOT NULL,
                    order_id TEXT,
                    status TEXT NOT NULL,
                    created_at BIGINT NOT NULL,
                    doc TEXT NOT NULL
                )
                """,
                "CREATE INDEX payments_by_store ON payments (store_id, created_at, id)",
                """
                CREATE TABLE receipts (
                    id TEXT PRIMARY KEY,
                    store_id TEXT NOT NULL,
                    number BIGINT NOT NULL,
                    payment_id TEXT NOT NULL,
                    issued_at BIGINT NOT NULL,
                    doc TEXT NOT NULL
                )
                """,
                "CREATE UNIQUE INDEX receipts_number ON receipts (store_id, number)",
                "CREATE UNIQUE INDEX receipts_payment ON receipts (payment_id)",
            ]),
        // The lifecycle: the columns lists filter on, filled from the documents of the payments
        // taken before; the pending ones the sweep expires; what its receipt will print of the
        // store, as it was when the payment was rung up; the provider reports received, by the
        // provider's event id.
        Migration(2, "the payment lifecycle") { transaction in
            for statement in [
                "ALTER TABLE payments ADD COLUMN method TEXT NOT NULL DEFAULT 'cash'",
                "ALTER TABLE payments ADD COLUMN staff_id TEXT NOT NULL DEFAULT ''",
                "ALTER TABLE payments ADD COLUMN expires_at BIGINT",
                "ALTER TABLE payments ADD COLUMN receipt_header TEXT",
                """
                CREATE TABLE provider_events (
                    provider TEXT NOT NULL,
                    id TEXT NOT NULL,
                    payment_id TEXT NOT NULL,
                    received_at BIGINT NOT NULL,
                    PRIMARY KEY (provider, id)
                )
                """,
            ] {
                try await transaction.sql.raw(SQLQueryString(statement)).run()
            }
            let payments = try await transaction.sql.raw("SELECT doc FROM payments").all()
                .map { try StoredDocument.decode(Payment.self, from: $0) }
            for payment in payments {
                try await transaction.sql.raw(
                    """
                    UPDATE payments SET method = \(bind: payment.method.rawValue),
                        staff_id = \(bind: payment.staffID.description)
                    WHERE id = \(bind: payment.id.description)
                    """
                ).run()
            }
            for statement in [
                "CREATE INDEX payments_due ON payments (expires_at) WHERE status = 'pending'",
                "CREATE INDEX payments_by_staff ON payments (store_id, staff_id, created_at, id)",
            ] {
                try await transaction.sql.raw(SQLQueryString(statement)).run()
            }
        },
        // Refunds, each kept whole as JSON; a refund's receipt sits with the sales' in
        // `receipts` (numbered with them), so `receipts_payment` is unique per sale only.
        Migration(
            3, "refunds",
            sql: [
                """
                CREATE TABLE refunds (
                    id TEXT PRIMARY KEY,
                    payment_id TEXT NOT NULL,
                    store_id TEXT NOT NULL,
                    created_at BIGINT NOT NULL,
                    doc TEXT NOT NULL
                )
                """,
                "CREATE INDEX refunds_by_payment ON refunds (payment_id, created_at)",
                "ALTER TABLE receipts ADD COLUMN kind TEXT NOT NULL DEFAULT 'sale'",
                "DROP INDEX receipts_payment",
                "CREATE UNIQUE INDEX receipts_sale ON receipts (payment_id) WHERE kind = 'sale'",
            ]),
        // The store users as the gateway's identity events tell them (names for receipts, who
        // may clock whom in), and the shifts, at most one open per user.
        Migration(
            4, "staff and shifts",
            sql: [
                """
                CREATE TABLE staff_members (
                    id TEXT PRIMARY KEY,
                    store_id TEXT,
                    role TEXT NOT NULL,
                    name TEXT NOT NULL,
                    active BIGINT NOT NULL,
                    version BIGINT NOT NULL
                )
                """,
                """
                CREATE TABLE shifts (
                    id TEXT PRIMARY KEY,
                    store_id TEXT NOT NULL,
                    user_id TEXT NOT NULL,
                    clocked_in_at BIGINT NOT NULL,
                    clocked_out_at BIGINT,
                    doc TEXT NOT NULL
                )
                """,
                "CREATE UNIQUE INDEX shifts_open ON shifts (user_id) WHERE clocked_out_at IS NULL",
                "CREATE INDEX shifts_by_store ON shifts (store_id, clocked_in_at, id)",
            ]),
        // The statistics' read model (`StatsRepository`, kept by `LedgerFollower`): what each
        // day took, by staff member and method, and by product.
        Migration(
            5, "statistics",
            sql: [
                """
                CREATE TABLE stats_days (
                    store_id TEXT NOT NULL,
                    day TEXT NOT NULL,
                    staff_id TEXT NOT NULL,
                    method TEXT NOT NULL,
                    sales BIGINT NOT NULL,
                    takings BIGINT NOT NULL,
                    tips BIGINT NOT NULL,
                    refunds BIGINT NOT NULL,
                    refunds_count BIGINT NOT NULL,
                    PRIMARY KEY (store_id, day, staff_id, method)
                )
                """,
                """
                CREATE TABLE stats_products (
                    store_id TEXT NOT NULL,
                    day TEXT NOT NULL,
                    product_key TEXT NOT NULL,
                    product_id TEXT,
                    name TEXT NOT NULL,
                    quantity BIGINT NOT NULL,
                    revenue BIGINT NOT NULL,
                    PRIMARY KEY (store_id, day, product_key)
                )
                """,
            ]),
        // The providers' reports by when they arrived, for housekeeping to prune those older
        // than their retention.
        Migration(
            6, "provider reports by age",
            sql: ["CREATE INDEX provider_events_by_time ON provider_events (received_at)"]),
        // The stores' customer records (`search` their lower-cased name and e-mail,
        // `search_phone` their phone's digits; at most one per store linked to an account)
        // and NFC cards (one uid per store).
        Migration(
            7, "customers and cards",
            sql: [
                """
                CREATE TABLE customers (
                    id TEXT PRIMARY KEY,
                    store_id TEXT NOT NULL,
                    user_id TEXT,
                    search TEXT NOT NULL,
                    search_phone TEXT NOT NULL,
                    created_at BIGINT NOT NULL,
                    doc TEXT NOT NULL
                )
                """,
                "CREATE INDEX customers_by_store ON customers (store_id, created_at, id)",
                "CREATE UNIQUE INDEX customers_by_user ON customers (store_id, user_id) WHERE user_id IS NOT NULL",
                """
                CREATE TABLE cards (
                    id TEXT PRIMARY KEY,
                    store_id TEXT NOT NULL,
                    uid TEXT NOT NULL,
                    customer_id TEXT,
                    status TEXT NOT NULL,
                    created_at BIGINT NOT NULL,
                    doc TEXT NOT NULL
                )
                """,
                "CREATE UNIQUE INDEX cards_uid ON cards (store_id, uid)",
                "CREATE INDEX cards_by_store ON cards (store_id, created_at, id)",
                "CREATE INDEX cards_by_customer ON cards (customer_id) WHERE customer_id IS NOT NULL",
            ]),
        // The store's change feed of payments (`change_seq`, numbered per store as each is
        // written), the payments written before numbered in the order they were made.
        Migration(8, "the payments' change feed") { transaction in
            try await transaction.sql.raw("ALTER TABLE payments ADD COLUMN change_seq BIGINT NOT NULL DEFAULT 0").run()
            let rows = try await transaction.sql.raw("SELECT id, store_id FROM payments ORDER BY created_at, id").all()
            for row in rows {
                let store = try row.decode(column: "store_id", as: String.self)
                try await transaction.sql.raw(
                    """
                    UPDATE payments SET change_seq = \(bind: try await transaction.nextSequence(PaymentsRepository.changes(of: store)))
                    WHERE id = \(bind: try row.decode(column: "id", as: String.self))
                    """
                ).run()
            }
            try await transaction.sql.raw("CREATE INDEX payments_changes ON payments (store_id, change_seq)").run()
        },
        // The double-entry ledger (`LedgerRepository`): each entry once by what caused it, its
        // postings by account and time, the running balances of the stores' and couriers'
        // accounts; the payouts. The payments completed and refunds made before it are posted
        // as they were, without commission (no store had one).
        Migration(9, "the ledger") { transaction in
            for statement: SQLQueryString in [
                """
                CREATE TABLE ledger_entries (
                    id TEXT PRIMARY KEY,
                    reference TEXT NOT NULL UNIQUE,
                    created_at BIGINT NOT NULL,
                    doc TEXT NOT NULL
                )
                """,
                """
                CREATE TABLE ledger_postings (
                    account TEXT NOT NULL,
                    created_at BIGINT NOT NULL,
                    id TEXT NOT NULL,
                    currency TEXT NOT NULL,
                    amount BIGINT NOT NULL,
                    PRIMARY KEY (account, created_at, id)
                )
                """,
                """
                CREATE TABLE ledger_balances (
                    account TEXT NOT NULL,
                    currency TEXT NOT NULL,
                    balance BIGINT NOT NULL,
                    PRIMARY KEY (account, currency)
                )
                """,
                "CREATE TABLE payouts (id TEXT PRIMARY KEY, created_at BIGINT NOT NULL, doc TEXT NOT NULL)",
            ] {
                try await transaction.sql.raw(statement).run()
            }
            let ledger = LedgerRepository()
            let payments = try await transaction.sql.raw(
                "SELECT doc FROM payments WHERE status IN ('completed', 'partially_refunded', 'refunded')"
            ).all().map { try StoredDocument.decode(Payment.self, from: $0) }
            for payment in payments {
                try await ledger.post(
                    Ledger.payment(payment, commissionBP: 0, at: payment.completedAt ?? payment.createdAt),
                    in: transaction)
            }
            let byID = Dictionary(uniqueKeysWithValues: payments.map { ($0.id, $0) })
            var refunded: [PaymentID: Int64] = [:]
            let refunds = try await transaction.sql.raw("SELECT doc FROM refunds ORDER BY created_at, id").all()
                .map { try StoredDocument.decode(Refund.self, from: $0) }
            for refund in refunds {
                guard var payment = byID[refund.paymentID] else { continue }
                refunded[payment.id, default: 0] += refund.amount
                payment.refundedAmount = refunded[payment.id]!
                try await ledger.post(
                    Ledger.refund(refund, of: payment, commissionBP: 0, at: refund.createdAt), in: transaction)
            }
        },
        // Refunds of cash a courier collected on delivery were booked back to the courier's cash,
        // which cleared a debt the courier still owed (the refund was paid from the store's till):
        // each gets a correction entry moving it to the store's till cash (`Ledger.correction`).
        Migration(10, "refunds of cash paid from the store's till") { transaction in
            let ledger = LedgerRepository()
            let refunds = try await transaction.sql.raw(
                """
                SELECT DISTINCT e.doc FROM ledger_entries e JOIN ledger_postings p ON p.id = e.id
                WHERE e.reference LIKE 'refund:%' AND p.account LIKE 'courier_cash:%'
                """
            ).all().map { try StoredDocument.decode(LedgerEntry.self, from: $0) }
            let now = Date.currentMillisecond
            for refund in refunds {
                if let correction = Ledger.correction(ofCourierRefund: refund, at: now) {
                    try await ledger.post(correction, in: transaction)
                }
            }
        },
        // The account a payment is made out to, as a column, for what a person's export and
        // erasure find of theirs (`customer_user_id`), filled from the payments taken before.
        Migration(11, "payments by the account they are made out to") { transaction in
            try await transaction.sql.raw("ALTER TABLE payments ADD COLUMN customer_user_id TEXT").run()
            try await transaction.sql.raw(
                "CREATE INDEX payments_by_customer_user ON payments (customer_user_id, created_at, id)"
            ).run()
            for row in try await transaction.sql.raw("SELECT doc FROM payments").all() {
                let payment = try StoredDocument.decode(Payment.self, from: row)
                guard let user = payment.customerUserID else { continue }
                try await transaction.sql.raw(
                    """
                    UPDATE payments SET customer_user_id = \(bind: user.description)
                    WHERE id = \(bind: payment.id.description)
                    """
                ).run()
            }
        },
        // A customer is found by their wallet address too (`q=`): `search` holds it beside the
        // name and e-mail, written again for the records kept before. A record an earlier build
        // writes (after a rollback) is found by its wallet again once this build writes it.
        Migration(12, "customers found by wallet address", readers: .earlierBuilds) { transaction in
            for row in try await transaction.sql.raw("SELECT doc FROM customers").all() {
                let customer = try StoredDocument.decode(Customer.self, from: row)
                guard customer.walletAddress != nil else { continue }
                try await transaction.sql.raw(
                    """
                    UPDATE customers SET search = \(bind: CustomersRepository.search(customer))
                    WHERE id = \(bind: customer.id.description)
                    """
                ).run()
            }
        },
        // The statistics per month beside per day (`StatsRepository`), so that a range of years
        // sums a row per month. The database keeps the months itself: a trigger adds each day
        // row's change to its month's, in the same transaction, whichever build wrote it (an
        // earlier one, beside this one in a rollout, writes the days alone). The months of the
        // days kept before are summed here.
        Migration(13, "statistics per month", readers: .earlierBuilds) { transaction in
            for statement in StatsMonths.tables + StatsMonths.triggers(transaction.kind) + StatsMonths.backfill {
                try await transaction.sql.raw(SQLQueryString(statement)).run()
            }
        },
        // Customers' devices a repair shop keeps (`CustomerDevice`), listed by store, by customer
        // and by serial (`serial_key`: without spaces and dashes, upper-cased).
        Migration(
            14, "customers' devices", readers: .earlierBuilds,
            sql: [
                """
                CREATE TABLE customer_devices (
                    id TEXT PRIMARY KEY,
                    store_id TEXT NOT NULL,
                    customer_id TEXT NOT NULL,
                    serial_key TEXT,
                    created_at BIGINT NOT NULL,
                    doc TEXT NOT NULL
                )
                """,
                "CREATE INDEX customer_devices_by_store ON customer_devices (store_id, created_at, id)",
                "CREATE INDEX customer_devices_by_customer ON customer_devices (customer_id, created_at, id)",
                "CREATE INDEX customer_devices_by_serial ON customer_devices (store_id, serial_key)",
            ]),
    ]
}
