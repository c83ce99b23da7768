import Contracts
import Domain
import Foundation
import SQLKit
import Storage

/// The payments service's SQL of the stores' customer records, each kept whole as JSON beside
/// the columns lists and searches use.
struct CustomersRepository: Sendable {
    let database: Database

    func insert(_ customer: Customer, in transaction: Transaction) async throws {
        try await transaction.sql.raw(
            """
            INSERT INTO customers (id, store_id, user_id, search, search_phone, created_at, doc)
            VALUES (\(bind: customer.id.description), \(bind: customer.storeID.description),
                \(bind: customer.userID?.description), \(bind: Self.search(customer)),
                \(bind: SearchPattern.digits(customer.phone ?? "")), \(bind: customer.createdAt.millisecondsSince1970),
                \(bind: try StoredDocument.text(customer)))
            """
        ).run()
    }

    /// Writes a changed customer; callers hold its lock (`payments.customer:<id>`).
    func update(_ customer: Customer, in transaction: Transaction) async throws {
        try await transaction.sql.raw(
            """
            UPDATE customers SET user_id = \(bind: customer.userID?.description),
                search = \(bind: Self.search(customer)), search_phone = \(bind: SearchPattern.digits(customer.phone ?? "")),
                doc = \(bind: try StoredDocument.text(customer))
            WHERE id = \(bind: customer.id.description)
            """
        ).run()
    }

    func delete(_ id: CustomerID, in transaction: Transaction) async throws {
        try await transaction.sql.raw("DELETE FROM customers WHERE id = \(bind: id.description)").run()
    }

    func find(_ id: CustomerID, in sql: any SQLDatabase) async throws -> Customer? {
        try await sql.raw("SELECT doc FROM customers WHERE id = \(bind: id.description)").first()
            .map { try StoredDocument.decode(Customer.self, from: $0) }
    }

    /// The customer record `id` of `store`; one of another store, or none, is refused (422
    /// `unknown_customer` naming `customer_id`).
    func customer(_ id: CustomerID, of store: StoreID, in sql: any SQLDatabase) async throws -> Customer {
        guard let customer = try await find(id, in: sql), customer.storeID == store else {
            throw OrderlyError(
                .unknownCustomer, "no such customer of the store",
                details: ["customer_id": .string("is not a customer of the store")])
        }
        return customer
    }

    /// The store's customer record linked to `user`'s account, if one is.
    func linked(to user: UserID, in store: StoreID, in sql: any SQLDatabase) async throws -> Customer? {
        try await sql.raw(
            """
            SELECT doc FROM customers WHERE store_id = \(bind: store.description)
            AND user_id = \(bind: user.description)
            """
        ).first().map { try StoredDocument.decode(Customer.self, from: $0) }
    }

    /// A page of a store's customers, newest first, those matching `request.search` only.
    func list(_ request: CustomerListRequest, after cursor: KeysetCursor?, limit: Int) async throws -> Page<Customer> {
        try await database.read { sql in
            var source: SQLQueryString = "customers WHERE store_id = \(bind: request.storeID.description)"
            if let search = request.search, let text = SearchPattern.containing(search) {
                var matches: SQLQueryString = "search LIKE \(bind: text) ESCAPE '\\'"
                if let digits = SearchPattern.phone(search) {
                    matches = matches + " OR search_phone LIKE \(bind: digits) ESCAPE '\\'"
                }
                source = source + " AND (" + matches + ")"
            }
            let page = try await KeysetCursor.list(
                Customer.self, from: source, descending: true, after: cursor, limit: limit,
                counting: request.page.counting, in: sql)
            return Page(data: page.items, nextCursor: page.next, total: page.total)
        }
    }

    /// What a search by text matches: the name, e-mail and wallet address, lower-cased.
    static func search(_ customer: Customer) -> String {
        [customer.name, customer.email, customer.walletAddress].compactMap { $0 }.joined(separator: " ").lowercased()
    }

    /// Records the first completed payment of the payment's customer, if it names one still
    /// kept; the caller is completing `payment` in `transaction`.
    func recordPayment(_ payment: Payment, in transaction: Transaction) async throws {
        guard let id = payment.customerID, let completed = payment.completedAt else { return }
        try await transaction.lock(.customer(id))
        guard var customer = try await find(id, in: transaction.sql), customer.paid(at: completed) else { return }
        customer.touch(at: completed)
        try await update(customer, in: transaction)
    }
}
