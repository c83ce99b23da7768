import Domain
import Foundation
import Storage

/// A customer's delivery addresses (`/v1/me/addresses`): theirs alone (`AccessPolicy.addressOwner`:
/// every statement names them, so another's is not found), at most
/// `DeliveryAddress.maximumPerUser`, exactly one of them the default. One customer's changes
/// take their lock one at a time.
struct AddressesHandlers: Sendable {
    let database: Database
    let addresses: AddressesRepository
    let idempotency: IdempotencyStore

    func list(by principal: Principal) async throws -> [DeliveryAddress] {
        let (owner, addresses) = (try AccessPolicy(principal).addressOwner(), self.addresses)
        return try await database.read { try await addresses.addresses(of: owner, in: $0) }
    }

    /// One of the caller's addresses; nil when they have none of that id.
    func address(_ id: AddressID, by principal: Principal) async throws -> DeliveryAddress? {
        try await list(by: principal).first { $0.id == id }
    }

    /// Saves a new address: the default when it is the first, or when `is_default` asks.
    func create(_ fields: AddressFields, by principal: Principal, idempotencyKey: String?) async throws
        -> DeliveryAddress
    {
        let owner = try AccessPolicy(principal).addressOwner()
        let checked = try fields.validated(creatingAt: Date.currentMillisecond)
        let addresses = self.addresses
        return try await idempotency.write(
            key: idempotencyKey, caller: owner, scope: "gateway.addresses.create", request: fields
        ) { transaction in
            try await transaction.lock(.addresses(of: owner))
            let existing = try await addresses.addresses(of: owner, in: transaction.sql)
            guard existing.count < DeliveryAddress.maximumPerUser else {
                throw OrderlyError(
                    .tooManyAddresses,
                    "a customer keeps at most \(DeliveryAddress.maximumPerUser) addresses; delete one first")
            }
            var address = checked
            address.isDefault = existing.isEmpty || fields.isDefault == true
            if address.isDefault {
                try await Self.unmakeDefault(but: address.id, of: owner, existing, addresses, transaction)
            }
            try await addresses.insert(address, of: owner, in: transaction)
            return address
        }
    }

    /// Changes the fields given; `is_default: true` makes it the default in place of the other.
    /// The default stays one until another is made so (`is_default: false` on it is refused).
    func update(_ id: AddressID, _ fields: AddressFields, expectedVersion: Int64?, by principal: Principal)
        async throws -> DeliveryAddress
    {
        let (owner, addresses) = (try AccessPolicy(principal).addressOwner(), self.addresses)
        return try await database.transaction { transaction in
            try await transaction.lock(.addresses(of: owner))
            let existing = try await addresses.addresses(of: owner, in: transaction.sql)
            guard let current = existing.first(where: { $0.id == id }) else {
                throw OrderlyError(.notFound, "no address \(id)")
            }
            if let expectedVersion, expectedVersion != current.version {
                throw OrderlyError.versionConflict(current: current)
            }
            var address = try fields.validated(updating: current)
            if fields.isDefault == true, !address.isDefault {
                address.isDefault = true
                try await Self.unmakeDefault(but: id, of: owner, existing, addresses, transaction)
            }
            let saved = Self.changed(address)
            try await addresses.update(saved, of: owner, in: transaction)
            return saved
        }
    }

    /// Deletes an address; when it was the default, the oldest left becomes the default.
    func delete(_ id: AddressID, by principal: Principal) async throws {
        let (owner, addresses) = (try AccessPolicy(principal).addressOwner(), self.addresses)
        try await database.transaction { transaction in
            try await transaction.lock(.addresses(of: owner))
            let existing = try await addresses.addresses(of: owner, in: transaction.sql)
            guard let address = existing.first(where: { $0.id == id }) else {
                throw OrderlyError(.notFound, "no address \(id)")
            }
            try await addresses.delete(id, of: owner, in: transaction)
            if address.isDefault, var next = existing.first(where: { $0.id != id }) {
                next.isDefault = true
                try await addresses.update(Self.changed(next), of: owner, in: transaction)
            }
        }
    }

    /// `address` as a change stores it: its version moved on, changed now.
    private static func changed(_ address: DeliveryAddress) -> DeliveryAddress {
        var changed = address
        changed.version += 1
        changed.updatedAt = Date.currentMillisecond
        return changed
    }

    /// Makes every address of `existing` but `id` no longer the default.
    private static func unmakeDefault(
        but id: AddressID, of owner: UserID, _ existing: [DeliveryAddress], _ addresses: AddressesRepository,
        _ transaction: Transaction
    ) async throws {
        for var other in existing where other.isDefault && other.id != id {
            other.isDefault = false
            try await addresses.update(changed(other), of: owner, in: transaction)
        }
    }
}
