import Contracts
import Domain
import Foundation
import SQLKit
import Storage
import Wire

/// The payments service's Wire methods of a store's customer records: created and looked up at
/// the till, changed, and deleted by the store's owners and managers. Their milestones are kept
/// from what happens: a card linked (`CardsHandlers`), a completed payment naming them
/// (`PaymentsHandlers.save`), `auto_sign` turned on.
struct CustomersHandlers: Sendable {
    let database: Database
    let catalog: any WireCaller

    var customers: CustomersRepository { CustomersRepository(database: database) }
    var cards: CardsRepository { CardsRepository(database: database) }
    var devices: CustomerDevicesRepository { CustomerDevicesRepository(database: database) }
    var idempotency: IdempotencyStore { IdempotencyStore(database: database) }

    func register(in router: inout WireRouter) {
        router.register(PaymentsAPI.createCustomer) { request, context in
            try await create(request, principal: context.requirePrincipal(), idempotencyKey: context.idempotencyKey)
        }
        router.register(PaymentsAPI.listCustomers) { request, context in
            guard AccessPolicy(try context.requirePrincipal()).canSeeCustomers(of: request.storeID) else {
                throw OrderlyError(.notFound, "no store \(request.storeID)")
            }
            return try await customers.list(
                request, after: try request.page.cursor.map { try KeysetCursor(token: $0) },
                limit: try KeysetCursor.limit(request.page.limit))
        }
        router.register(PaymentsAPI.getCustomer) { ref, context in
            let customers = self.customers
            return try await database.read { sql in
                try await Self.customer(ref.id, for: context.requirePrincipal(), customers, in: sql)
            }
        }
        router.register(PaymentsAPI.updateCustomer) { patch, context in
            try await update(patch, principal: context.requirePrincipal(), idempotencyKey: context.idempotencyKey)
        }
        router.register(PaymentsAPI.deleteCustomer) { ref, context in
            try await delete(ref.id, principal: context.requirePrincipal(), idempotencyKey: context.idempotencyKey)
        }
    }

    /// A new customer record of the store; an id or account already taken is 409 naming it.
    func create(_ request: NewCustomer, principal: Principal, idempotencyKey: String?) async throws -> Customer {
        try AccessPolicy(principal).checkKeepingCustomers(
            of: request.storeID, else: OrderlyError(.notFound, "no store \(request.storeID)"))
        // The store must exist (an admin may name any id).
        _ = try await catalog.call(
            CatalogAPI.getStore, ResourceRef(id: request.storeID), options: WireCallOptions(principal: principal))
        let now = Date.currentMillisecond
        let created = try request.customer.validated(creatingIn: request.storeID, at: now)
        let customers = self.customers
        return try await idempotency.write(
            key: idempotencyKey, caller: principal.userID, scope: "payments.customers.create:\(request.storeID)",
            request: request
        ) { transaction in
            try await transaction.lock(.customer(created.id))
            if try await customers.find(created.id, in: transaction.sql) != nil {
                throw OrderlyError(
                    .conflict, "a customer \(created.id) exists already", details: ["id": .string("is taken")])
            }
            try await Self.checkLink(of: created, customers, in: transaction)
            try await customers.insert(created, in: transaction)
            return created
        }
    }

    /// Changes a customer record's fields, at the version the caller read when it names one.
    func update(_ patch: CustomerPatch, principal: Principal, idempotencyKey: String?) async throws -> Customer {
        let customers = self.customers
        return try await idempotency.write(
            key: idempotencyKey, caller: principal.userID, scope: "payments.customers.update:\(patch.id)",
            request: patch
        ) { transaction in
            try await transaction.lock(.customer(patch.id))
            var customer = try await Self.customer(
                patch.id, for: principal, customers, toChange: true, in: transaction.sql)
            if let expected = patch.expectedVersion, expected != customer.version {
                throw OrderlyError.versionConflict(current: customer)
            }
            let before = customer
            let now = Date.currentMillisecond
            customer = try patch.changes.validated(updating: customer, at: now)
            guard customer != before else { return customer }
            if customer.userID != before.userID { try await Self.checkLink(of: customer, customers, in: transaction) }
            customer.touch(at: now)
            try await customers.update(customer, in: transaction)
            return customer
        }
    }

    /// Deletes a customer record (owners, managers and admins): its cards are unlinked, its
    /// devices deleted, its payments keep naming it (and an order's repair lines their devices).
    func delete(_ id: CustomerID, principal: Principal, idempotencyKey: String?) async throws -> Customer {
        let (customers, cards, devices) = (self.customers, self.cards, self.devices)
        return try await idempotency.write(
            key: idempotencyKey, caller: principal.userID, scope: "payments.customers.delete:\(id)",
            request: ResourceRef(id: id)
        ) { transaction in
            try await transaction.lock(.customer(id))
            let customer = try await Self.customer(id, for: principal, customers, toChange: true, in: transaction.sql)
            guard AccessPolicy(principal).canDeleteCustomers(of: customer.storeID) else {
                throw OrderlyError(.permissionDenied, "only the store's owners and managers delete customers")
            }
            let now = Date.currentMillisecond
            for var card in try await cards.cards(of: id, in: transaction.sql) {
                try await transaction.lock(.card(card.id))
                card.customerID = nil
                card.touch(at: now)
                try await cards.update(card, in: transaction)
            }
            try await devices.delete(of: id, in: transaction)
            try await customers.delete(id, in: transaction)
            return customer
        }
    }

    /// The customer record `id`, when the caller may see it (404 otherwise) and, `toChange`,
    /// change it (403).
    static func customer(
        _ id: CustomerID, for principal: Principal, _ customers: CustomersRepository, toChange: Bool = false,
        in sql: any SQLDatabase
    ) async throws -> Customer {
        let missing = OrderlyError(.notFound, "no customer \(id)")
        let policy = AccessPolicy(principal)
        guard let customer = try await customers.find(id, in: sql), policy.canSeeCustomers(of: customer.storeID)
        else { throw missing }
        if toChange { try policy.checkKeepingCustomers(of: customer.storeID, else: missing) }
        return customer
    }

    /// Refuses to link an account another record of the store is linked to (409 naming
    /// `user_id`), under the link's lock.
    private static func checkLink(of customer: Customer, _ customers: CustomersRepository, in transaction: Transaction)
        async throws
    {
        guard let user = customer.userID else { return }
        try await transaction.lock(.customerLink(of: user, in: customer.storeID))
        if let other = try await customers.linked(to: user, in: customer.storeID, in: transaction.sql),
            other.id != customer.id
        {
            throw OrderlyError(
                .conflict, "the account is linked to another customer of the store",
                details: ["user_id": .string("is linked to customer \(other.id)")])
        }
    }
}
