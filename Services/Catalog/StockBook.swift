import Contracts
import Domain
import Foundation
import Storage

/// The one place the catalog writes a product and its stock, in the caller's transaction: a
/// product created (with its opening ledger entry) or saved as its next version (with the low- or
/// out-of-stock alert its stock crossed into), a quantity moved with its ledger entry, and a
/// reservation's units held, sold or given back. The handlers, the followers of orders and
/// payments and the expiry sweep all write through it.
struct StockBook: Sendable {
    let database: Database

    var products: ProductsRepository { ProductsRepository(database: database) }
    var reservations: ReservationsRepository { ReservationsRepository(database: database) }

    /// Stores a new product, an `initial` ledger entry for any quantity it starts with, and
    /// publishes `product.created`.
    func create(_ product: Product, by user: UserID, in transaction: Transaction) async throws {
        try await products.insert(product, in: transaction)
        if product.quantity != 0 {
            try await products.appendLedger(
                product, from: 0, reason: .initial, by: user, at: product.createdAt, in: transaction)
        }
        transaction.publish(try CatalogEvents.product(CatalogAPI.Events.productCreated, product))
    }

    /// Writes a changed product as its next version and publishes `product.updated`, and
    /// `stock.low` or `stock.out` when its stock crossed into that status from `before`.
    /// Callers hold the product's lock, so the version read is still the current one.
    func save(_ product: inout Product, alertingAfter before: StockStatus? = nil, in transaction: Transaction)
        async throws
    {
        let previousVersion = product.version
        product.version += 1
        product.updatedAt = Date.currentMillisecond
        guard try await products.update(product, previousVersion: previousVersion, in: transaction) else {
            throw OrderlyError(.versionConflict, "the product changed meanwhile; retry")
        }
        transaction.publish(try CatalogEvents.product(CatalogAPI.Events.productUpdated, product))
        if let before, let alert = product.stockStatus.alert(after: before) {
            transaction.publish(try CatalogEvents.product(alert, product))
        }
    }

    /// Saves `product`, whose quantity moved from `before`'s, and records the move as its next
    /// ledger entry.
    @discardableResult
    func move(
        _ product: inout Product, from before: Product, reason: StockReason, notes: String? = nil,
        reference: String? = nil, by user: UserID, clientCreatedAt: Date? = nil, in transaction: Transaction
    ) async throws -> StockLedgerEntry {
        try await save(&product, alertingAfter: before.stockStatus, in: transaction)
        return try await products.appendLedger(
            product, from: before.quantity, reason: reason, notes: notes, reference: reference, by: user,
            at: product.updatedAt, clientCreatedAt: clientCreatedAt, in: transaction)
    }

    /// Holds `lines`' units of `locked` (products locked by this transaction) for `reservation`
    /// and stores it.
    func hold(_ reservation: Reservation, of locked: [ProductID: Product], in transaction: Transaction) async throws {
        for line in reservation.lines {
            guard var product = locked[line.productID] else { continue }
            let before = product.stockStatus
            product.reserved += line.quantity
            try await save(&product, alertingAfter: before, in: transaction)
        }
        try await reservations.insert(reservation, in: transaction)
    }

    /// Ends `reservation` as `outcome` within `transaction`, which holds its lock. Does nothing
    /// when it ended so already.
    func end(
        _ reservation: inout Reservation, as outcome: ReservationStatus, by user: UserID?, in transaction: Transaction
    ) async throws {
        let now = Date.currentMillisecond
        guard try reservation.ends(as: outcome, at: now) else { return }
        // A reservation names each product once, so each is read once here.
        let locked = try await products.lockedProducts(of: reservation.lines, in: transaction)
        for line in reservation.lines {
            guard var product = locked[line.productID] else {
                throw StorageError.unexpected("reservation \(reservation.id) holds a product that is gone")
            }
            let before = product
            product.reserved -= line.quantity
            if outcome == .committed {
                // Units held are sold whatever is available now: they were promised when held.
                product.quantity -= line.quantity
                try await move(
                    &product, from: before, reason: .sale,
                    reference: reservation.reference ?? reservation.id.description,
                    by: user ?? reservation.createdBy, in: transaction)
            } else {
                try await save(&product, alertingAfter: before.stockStatus, in: transaction)
            }
        }
        reservation.status = outcome
        reservation.updatedAt = now
        try await reservations.update(reservation, in: transaction)
    }

    /// Holds a reservation that expired or was released again, when its stock is available, or
    /// with `regardless`, whatever is available (units already handed over, about to be sold).
    /// Returns whether it is held now; a committed one never is again.
    func holdAgain(
        _ reservation: inout Reservation, regardless: Bool = false, in transaction: Transaction
    ) async throws -> Bool {
        guard reservation.status != .committed else { return false }
        let locked = try await products.lockedProducts(of: reservation.lines, in: transaction)
        for line in reservation.lines {
            guard let product = locked[line.productID] else { return false }
            if !regardless, (try? product.checkReservable(line.quantity)) == nil { return false }
        }
        for line in reservation.lines {
            guard var product = locked[line.productID] else { continue }
            let before = product.stockStatus
            product.reserved += line.quantity
            try await save(&product, alertingAfter: before, in: transaction)
        }
        reservation.status = .held
        reservation.updatedAt = Date.currentMillisecond
        try await reservations.update(reservation, in: transaction)
        return true
    }
}
