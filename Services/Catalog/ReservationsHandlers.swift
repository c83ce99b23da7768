import Contracts
import Domain
import Foundation
import Runtime
import Storage
import Wire

/// The catalog's Wire methods of reservations, stock held for a sale with a time limit, and
/// how a reservation ends (committed, released, expired) for them and for the followers of the
/// orders' and payments' events.
struct ReservationsHandlers: Sendable {
    let database: Database

    var book: StockBook { StockBook(database: database) }
    var products: ProductsRepository { book.products }
    var reservations: ReservationsRepository { book.reservations }
    var idempotency: IdempotencyStore { IdempotencyStore(database: database) }

    func register(in router: inout WireRouter) {
        router.register(CatalogAPI.reserve) { request, context in
            try await reserve(
                request, principal: context.requirePrincipal(), idempotencyKey: context.idempotencyKey,
                caller: context.callerService)
        }
        router.register(CatalogAPI.getReservation) { ref, context in
            try await reservation(ref.id, principal: context.requirePrincipal())
        }
        router.register(CatalogAPI.commitReservation) { ref, context in
            try await end(ref.id, as: .committed, by: context.requirePrincipal())
        }
        router.register(CatalogAPI.releaseReservation) { ref, context in
            try await end(ref.id, as: .released, by: context.requirePrincipal(), caller: context.callerService)
        }
    }

    /// Holds every line's units, or none: lines naming what is not a stock-tracked active
    /// product of the store are bad fields; products without enough available are named
    /// together in one `409 insufficient_stock` (`details.products`). Each product is locked
    /// while it is checked and changed, in id order, so concurrent reservations never hold
    /// more than there is and never wait on each other in a circle.
    func reserve(
        _ request: NewReservation, principal: Principal, idempotencyKey: String?,
        caller: String = GatewayAPI.service
    ) async throws -> Reservation {
        let forAnOrder = request.orderID != nil && caller == OrdersAPI.service
        guard AccessPolicy(principal).canReserveStock(of: request.storeID, forAnOrder: forAnOrder) else {
            throw OrderlyError(.notFound, "no store \(request.storeID)")
        }
        if request.orderID != nil, caller != OrdersAPI.service {
            throw OrderlyError.invalidFields(["order_id": "is set by the orders service for its orders' lines"])
        }
        if request.paymentID != nil, caller != PaymentsAPI.service {
            throw OrderlyError.invalidFields(["payment_id": "is set by the payments service for its payments"])
        }
        let (lines, reference, seconds) = try request.validated()
        let now = Date.currentMillisecond
        let reservation = Reservation(
            id: request.id ?? ReservationID(), storeID: request.storeID, lines: lines, reference: reference,
            orderID: request.orderID, paymentID: request.paymentID,
            expiresAt: now.addingTimeInterval(TimeInterval(seconds)),
            createdBy: principal.userID, createdAt: now,
            updatedAt: now)
        let (products, reservations, book) = (self.products, self.reservations, self.book)
        return try await idempotency.write(
            key: idempotencyKey, caller: principal.userID, scope: "catalog.reservations.create:\(request.storeID)",
            request: request
        ) { transaction in
            try await transaction.lock(.reservation(reservation.id))
            if try await reservations.find(reservation.id, in: transaction.sql) != nil {
                throw OrderlyError(
                    .conflict, "a reservation \(reservation.id) exists already", details: ["id": .string("is taken")])
            }
            let locked = try await products.lockedProducts(of: lines, in: transaction)
            var problems = FieldProblems()
            var short: [JSONValue] = []
            var notForSale: OrderlyError?
            for (index, line) in lines.enumerated() {
                guard let product = locked[line.productID], product.storeID == reservation.storeID else {
                    problems.add("lines[\(index)].product_id", "is not a product of the store")
                    continue
                }
                do {
                    try product.checkForSale(field: "lines[\(index)].product_id")
                } catch let error as OrderlyError {
                    notForSale = notForSale ?? error
                    continue
                }
                if !product.trackStock {
                    problems.add("lines[\(index)].product_id", "does not track stock, so there is nothing to reserve")
                } else if (try? product.checkReservable(line.quantity)) == nil {
                    short.append(
                        .object([
                            "product_id": .string(product.id.description), "available": .int(max(0, product.available)),
                            "requested": .int(line.quantity),
                        ]))
                }
            }
            try problems.check()
            if let notForSale { throw notForSale }
            guard short.isEmpty else {
                throw OrderlyError(
                    .insufficientStock, "not enough stock for \(short.count) of the lines",
                    details: ["products": .array(short)])
            }
            try await book.hold(reservation, of: locked, in: transaction)
            return reservation
        }
    }

    func reservation(_ id: ReservationID, principal: Principal) async throws -> Reservation {
        guard let reservation = try await database.read({ try await reservations.find(id, in: $0) }),
            AccessPolicy(principal).canReserveStock(of: reservation.storeID)
        else { throw OrderlyError(.notFound, "no reservation \(id)") }
        return reservation
    }

    /// Ends a held reservation: `committed` sells its units (a `sale` ledger entry per line,
    /// referencing the reservation's reference or else its id); `released` and `expired` give them
    /// back. `principal` is nil for the catalog's own sweeps. Ending it again as it ended is
    /// harmless and answers it as it is. A reservation for an order's line ends with the order (the
    /// catalog's `OrderHoldsFollower`), one for a payment with the payment (the catalog's
    /// `PaymentHoldsFollower`); only the orders or payments service may give one back early (a line or
    /// payment it could not store).
    @discardableResult
    func end(
        _ id: ReservationID, as outcome: ReservationStatus, by principal: Principal?,
        caller: String = GatewayAPI.service
    ) async throws -> Reservation {
        let (reservations, book) = (self.reservations, self.book)
        return try await database.transaction { transaction in
            try await transaction.lock(.reservation(id))
            guard var reservation = try await reservations.find(id, in: transaction.sql),
                principal.map({
                    AccessPolicy($0).canReserveStock(
                        of: reservation.storeID, forAnOrder: reservation.orderID != nil && caller == OrdersAPI.service)
                }) ?? true
            else { throw OrderlyError(.notFound, "no reservation \(id)") }
            if let order = reservation.orderID, principal != nil,
                !(caller == OrdersAPI.service && outcome == .released)
            {
                throw OrderlyError(
                    .heldForOrder, "the reservation holds stock for order \(order) and ends with it")
            }
            if let payment = reservation.paymentID, principal != nil,
                !(caller == PaymentsAPI.service && outcome == .released)
            {
                throw OrderlyError(
                    .heldForPayment, "the reservation holds stock for payment \(payment) and ends with it")
            }
            try await book.end(&reservation, as: outcome, by: principal?.userID, in: transaction)
            return reservation
        }
    }

    /// Expires the held reservations whose time has run out, a batch at a time; returns how many.
    /// Any replica may run it beside the others: each reservation ends under its own lock, once.
    func expireDue(limit: Int = 100) async throws -> Int {
        var expired = 0
        for id in try await reservations.due(at: Date.currentMillisecond, limit: limit) {
            try await end(id, as: .expired, by: nil)
            expired += 1
        }
        return expired
    }
}
