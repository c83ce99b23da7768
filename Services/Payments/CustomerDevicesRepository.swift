import Contracts
import Domain
import Foundation
import SQLKit
import Storage

/// The payments service's SQL of customers' devices, each kept whole as JSON beside the
/// columns lists use.
struct CustomerDevicesRepository: Sendable {
    let database: Database

    func insert(_ device: CustomerDevice, in transaction: Transaction) async throws {
        try await transaction.sql.raw(
            """
            INSERT INTO customer_devices (id, store_id, customer_id, serial_key, created_at, doc)
            VALUES (\(bind: device.id.description), \(bind: device.storeID.description),
                \(bind: device.customerID.description), \(bind: device.serial.map(CustomerDevice.serialKey)),
                \(bind: device.createdAt.millisecondsSince1970), \(bind: try StoredDocument.text(device)))
            """
        ).run()
    }

    /// Writes a changed device; callers hold its lock (`payments.customer_device:<id>`).
    func update(_ device: CustomerDevice, in transaction: Transaction) async throws {
        try await transaction.sql.raw(
            """
            UPDATE customer_devices SET customer_id = \(bind: device.customerID.description),
                serial_key = \(bind: device.serial.map(CustomerDevice.serialKey)),
                doc = \(bind: try StoredDocument.text(device))
            WHERE id = \(bind: device.id.description)
            """
        ).run()
    }

    func find(_ id: CustomerDeviceID, in sql: any SQLDatabase) async throws -> CustomerDevice? {
        try await sql.raw("SELECT doc FROM customer_devices WHERE id = \(bind: id.description)").first()
            .map { try StoredDocument.decode(CustomerDevice.self, from: $0) }
    }

    /// Deletes the devices of `customer`, whose record goes.
    func delete(of customer: CustomerID, in transaction: Transaction) async throws {
        try await transaction.sql.raw(
            "DELETE FROM customer_devices WHERE customer_id = \(bind: customer.description)"
        ).run()
    }

    /// A page of a store's devices, newest first, of a customer and with a serial.
    func list(_ request: CustomerDeviceListRequest, after cursor: KeysetCursor?, limit: Int) async throws
        -> Page<CustomerDevice>
    {
        try await database.read { sql in
            var source: SQLQueryString = "customer_devices WHERE store_id = \(bind: request.storeID.description)"
            if let customer = request.customerID {
                source = source + " AND customer_id = \(bind: customer.description)"
            }
            if let serial = request.serial {
                source = source + " AND serial_key = \(bind: CustomerDevice.serialKey(serial))"
            }
            let page = try await KeysetCursor.list(
                CustomerDevice.self, from: source, descending: true, after: cursor, limit: limit,
                counting: request.page.counting, in: sql)
            return Page(data: page.items, nextCursor: page.next, total: page.total)
        }
    }
}
