import Domain
import Foundation
import Storage

/// A customer's delivery addresses (`/v1/me/addresses`): theirs alone (every read is by the
/// caller's id, so another's is not found), at most `DeliveryAddress.maximumPerUser`, exactly
/// one of them the default. One customer's changes take their lock one at a time.
struct AddressesHandlers: Sendable {
    let database: Database
    let addresses: AddressesRepository
    let idempotency: IdempotencyStore

    func list(by principal: Principal) async throws -> [DeliveryAddress] {
        try Self.check(principal)
        let addresses = self.addresses
        return try await database.read { try await addresses.addresses(of: principal.userID, in: $0) }
    }

    /// Saves a new address: the default when it is the first, or when `is_default` asks.
    func create(_ fields: AddressFields, by principal: Principal, idempotencyKey: String?) async throws
        -> DeliveryAddress
    {
        try Self.check(principal)
        let now = Date.currentMillisecond
        var address = DeliveryAddress(
            id: AddressID(), label: nil, street: "", buildingNo: "", floor: nil, apartment: nil, city: nil,
            deliveryNotes: nil, phone: nil, isDefault: false, version: 1, createdAt: now, updatedAt: now)
        try fields.apply(to: &address, creating: true)
        let (addresses, user, checked) = (self.addresses, principal.userID, address)
        return try await idempotency.write(
            key: idempotencyKey, caller: user, scope: "gateway.addresses.create", request: fields
        ) { transaction in
            try await transaction.lock(Self.lock(user))
            let existing = try await addresses.addresses(of: user, in: transaction.sql)
            guard existing.count < DeliveryAddress.maximumPerUser else {
                throw OrderlyError(
                    .failedPrecondition,
                    "a customer keeps at most \(DeliveryAddress.maximumPerUser) addresses; delete one first",
                    reason: "too_many_addresses")
            }
            var address = checked
            address.isDefault = existing.isEmpty || fields.isDefault == true
            if address.isDefault { try await Self.makeDefault(address.id, among: existing, addresses, transaction) }
            try await addresses.insert(address, of: user, in: transaction)
            return address
        }
    }

    /// Changes the fields given; `is_default: true` makes it the default in place of the other.
    /// The default stays one until another is made so (`is_default: false` on it is refused).
    func update(_ id: AddressID, _ fields: AddressFields, expectedVersion: Int64?, by principal: Principal)
        async throws -> DeliveryAddress
    {
        try Self.check(principal)
        let (addresses, user) = (self.addresses, principal.userID)
        return try await database.transaction { transaction in
            try await transaction.lock(Self.lock(user))
            let existing = try await addresses.addresses(of: user, in: transaction.sql)
            guard var address = existing.first(where: { $0.id == id }) else {
                throw OrderlyError(.notFound, "no address \(id)")
            }
            if let expectedVersion, expectedVersion != address.version {
                throw OrderlyError.versionConflict(current: address)
            }
            try fields.apply(to: &address, creating: false)
            if fields.isDefault == false, address.isDefault {
                throw OrderlyError.invalidFields(["is_default": "make another address the default instead"])
            }
            if fields.isDefault == true, !address.isDefault {
                address.isDefault = true
                try await Self.makeDefault(id, among: existing, addresses, transaction)
            }
            address.version += 1
            address.updatedAt = Date.currentMillisecond
            try await addresses.update(address, in: transaction)
            return address
        }
    }

    /// Deletes an address; when it was the default, the oldest left becomes the default.
    func delete(_ id: AddressID, by principal: Principal) async throws {
        try Self.check(principal)
        let (addresses, user) = (self.addresses, principal.userID)
        try await database.transaction { transaction in
            try await transaction.lock(Self.lock(user))
            let existing = try await addresses.addresses(of: user, in: transaction.sql)
            guard let address = existing.first(where: { $0.id == id }) else {
                throw OrderlyError(.notFound, "no address \(id)")
            }
            try await addresses.delete(id, in: transaction)
            if address.isDefault, var next = existing.first(where: { $0.id != id }) {
                next.isDefault = true
                next.version += 1
                next.updatedAt = Date.currentMillisecond
                try await addresses.update(next, in: transaction)
            }
        }
    }

    private static func check(_ principal: Principal) throws(OrderlyError) {
        guard AccessPolicy(principal).canKeepAddresses else {
            throw OrderlyError(.permissionDenied, "only customers keep delivery addresses")
        }
    }

    private static func lock(_ user: UserID) -> String { "gateway.addresses:\(user)" }

    /// Makes every address of `existing` but `id` no longer the default.
    private static func makeDefault(
        _ id: AddressID, among existing: [DeliveryAddress], _ addresses: AddressesRepository,
        _ transaction: Transaction
    ) async throws {
        for var other in existing where other.isDefault && other.id != id {
            other.isDefault = false
            other.version += 1
            other.updatedAt = Date.currentMillisecond
            try await addresses.update(other, in: transaction)
        }
    }
}
