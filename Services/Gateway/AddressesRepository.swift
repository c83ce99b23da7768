import Domain
import Foundation
import SQLKit
import Storage

/// Customers' delivery addresses: a row each, by its customer, the address whole in `doc`.
/// Every statement names the customer, so none reaches another's.
struct AddressesRepository: Sendable {
    /// `user`'s addresses, oldest first.
    func addresses(of user: UserID, in sql: any SQLDatabase) async throws -> [DeliveryAddress] {
        try await sql.raw(
            "SELECT doc FROM addresses WHERE user_id = \(bind: user.description) ORDER BY created_at, id"
        ).all().map { try StoredDocument.decode(DeliveryAddress.self, from: $0) }
    }

    func insert(_ address: DeliveryAddress, of user: UserID, in transaction: Transaction) async throws {
        try await transaction.sql.raw(
            """
            INSERT INTO addresses (id, user_id, created_at, doc)
            VALUES (\(bind: address.id.description), \(bind: user.description),
                \(bind: address.createdAt.millisecondsSince1970), \(bind: try StoredDocument.text(address)))
            """
        ).run()
    }

    func update(_ address: DeliveryAddress, of user: UserID, in transaction: Transaction) async throws {
        try await transaction.sql.raw(
            """
            UPDATE addresses SET doc = \(bind: try StoredDocument.text(address))
            WHERE id = \(bind: address.id.description) AND user_id = \(bind: user.description)
            """
        ).run()
    }

    func delete(_ id: AddressID, of user: UserID, in transaction: Transaction) async throws {
        try await transaction.sql.raw(
            "DELETE FROM addresses WHERE id = \(bind: id.description) AND user_id = \(bind: user.description)"
        ).run()
    }
}
