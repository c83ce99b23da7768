import Contracts
import Domain
import Foundation
import SQLKit
import Storage
import Wire

/// The payments service's Wire methods of customers' devices, which a repair shop books in:
/// kept, listed and changed by whoever keeps the store's customer records, always of one of the
/// store's customers (422 `unknown_customer` naming `customer_id` otherwise).
struct CustomerDevicesHandlers: Sendable {
    let database: Database
    let catalog: any WireCaller

    var devices: CustomerDevicesRepository { CustomerDevicesRepository(database: database) }
    var customers: CustomersRepository { CustomersRepository(database: database) }
    var idempotency: IdempotencyStore { IdempotencyStore(database: database) }

    func register(in router: inout WireRouter) {
        router.register(PaymentsAPI.createDevice) { request, context in
            try await create(request, principal: context.requirePrincipal(), idempotencyKey: context.idempotencyKey)
        }
        router.register(PaymentsAPI.listDevices) { request, context in
            guard AccessPolicy(try context.requirePrincipal()).canSeeCustomers(of: request.storeID) else {
                throw OrderlyError(.notFound, "no store \(request.storeID)")
            }
            return try await devices.list(
                request, after: try request.page.cursor.map { try KeysetCursor(token: $0) },
                limit: try KeysetCursor.limit(request.page.limit))
        }
        router.register(PaymentsAPI.getDevice) { ref, context in
            let devices = self.devices
            return try await database.read { sql in
                try await Self.device(ref.id, for: context.requirePrincipal(), devices, in: sql)
            }
        }
        router.register(PaymentsAPI.updateDevice) { patch, context in
            try await update(patch, principal: context.requirePrincipal(), idempotencyKey: context.idempotencyKey)
        }
    }

    /// Keeps a device of one of the store's customers; an id already taken is 409 naming it.
    func create(_ request: NewCustomerDevice, principal: Principal, idempotencyKey: String?) async throws
        -> CustomerDevice
    {
        try AccessPolicy(principal).checkKeepingCustomers(
            of: request.storeID, else: OrderlyError(.notFound, "no store \(request.storeID)"))
        _ = try await catalog.call(
            CatalogAPI.getStore, ResourceRef(id: request.storeID), options: WireCallOptions(principal: principal))
        let new = try request.device.validated(creatingIn: request.storeID, at: Date.currentMillisecond)
        let (devices, customers) = (self.devices, self.customers)
        return try await idempotency.write(
            key: idempotencyKey, caller: principal.userID, scope: "payments.devices.create:\(request.storeID)",
            request: request
        ) { transaction in
            try await transaction.lock(.customerDevice(new.id))
            if try await devices.find(new.id, in: transaction.sql) != nil {
                throw OrderlyError(.conflict, "a device \(new.id) exists already", details: ["id": .string("is taken")])
            }
            // The customer's lock keeps the record from being deleted before the device is written.
            try await transaction.lock(.customer(new.customerID))
            _ = try await customers.customer(new.customerID, of: new.storeID, in: transaction.sql)
            try await devices.insert(new, in: transaction)
            return new
        }
    }

    /// Changes a device's fields or customer, at the version the caller read when it names one.
    func update(_ patch: CustomerDevicePatch, principal: Principal, idempotencyKey: String?) async throws
        -> CustomerDevice
    {
        let (devices, customers) = (self.devices, self.customers)
        return try await idempotency.write(
            key: idempotencyKey, caller: principal.userID, scope: "payments.devices.update:\(patch.id)",
            request: patch
        ) { transaction in
            try await transaction.lock(.customerDevice(patch.id))
            var device = try await Self.device(patch.id, for: principal, devices, toChange: true, in: transaction.sql)
            if let expected = patch.expectedVersion, expected != device.version {
                throw OrderlyError.versionConflict(current: device)
            }
            let before = device
            device = try patch.changes.validated(updating: device)
            guard device != before else { return device }
            if device.customerID != before.customerID {
                try await transaction.lock(.customer(device.customerID))
                _ = try await customers.customer(device.customerID, of: device.storeID, in: transaction.sql)
            }
            device.touch(at: Date.currentMillisecond)
            try await devices.update(device, in: transaction)
            return device
        }
    }

    /// The device `id`, when the caller may see it (404 otherwise) and, `toChange`, change it (403).
    static func device(
        _ id: CustomerDeviceID, for principal: Principal, _ devices: CustomerDevicesRepository,
        toChange: Bool = false, in sql: any SQLDatabase
    ) async throws -> CustomerDevice {
        let missing = OrderlyError(.notFound, "no device \(id)")
        let policy = AccessPolicy(principal)
        guard let device = try await devices.find(id, in: sql), policy.canSeeCustomers(of: device.storeID) else {
            throw missing
        }
        if toChange { try policy.checkKeepingCustomers(of: device.storeID, else: missing) }
        return device
    }
}
