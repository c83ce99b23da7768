import Contracts
import Domain
import Foundation
import Logging
import NIOCore
import Runtime
import SQLKit
import Storage
import Wire

/// The payments service's Wire methods of payments, their receipts and the store's statistics:
/// each decodes its request, asks `AccessPolicy`, validates, calls the repository and publishes
/// the payment's event.
///
/// A payment's stock is a saga with the catalog. Creating one holds the tracked items' stock first
/// (a reservation naming the payment, expiring `PaymentsAPI.stockGraceSeconds` after the payment
/// would), then stores the payment; a reservation whose payment was not stored is given back at
/// once, or expires by itself if the process stopped between the two steps. From then on the
/// catalog follows the payment's events (its `PaymentHoldsFollower`): kept while a provider works on
/// it, sold when it completes, given back when it fails, is cancelled or expires.
struct PaymentsHandlers: Sendable {
    let database: Database
    let catalog: any WireCaller
    let orders: any WireCaller
    let logger: Logger

    var book: PaymentBook { PaymentBook(database: database) }
    var stock: StockHolds { StockHolds(catalog: catalog, logger: logger) }
    var payments: PaymentsRepository { PaymentsRepository(database: database) }
    var shifts: ShiftsRepository { ShiftsRepository(database: database) }
    var stats: StatsRepository { StatsRepository(database: database) }
    var idempotency: IdempotencyStore { IdempotencyStore(database: database) }
    var customers: CustomersRepository { CustomersRepository(database: database) }
    var cards: CardsRepository { CardsRepository(database: database) }

    func register(in router: inout WireRouter) {
        router.register(PaymentsAPI.createPayment) { draft, context in
            try await create(
                draft, principal: context.requirePrincipal(),
                idempotencyKey: context.requireIdempotencyKey(for: "creating a payment"))
        }
        router.register(PaymentsAPI.getPayment) { ref, context in
            try await payment(ref.id, principal: context.requirePrincipal())
        }
        router.register(PaymentsAPI.confirmCash) { request, context in
            try await confirm(request, principal: context.requirePrincipal(), idempotencyKey: context.idempotencyKey)
        }
        router.register(PaymentsAPI.cancelPayment) { ref, context in
            try await cancel(ref.id, principal: context.requirePrincipal(), idempotencyKey: context.idempotencyKey)
        }
        router.register(PaymentsAPI.ownPayments) { page, context in
            let cursor = try page.cursor.map { cursor throws(OrderlyError) in try KeysetCursor(token: cursor) }
            return try await payments.payments(
                of: try context.requirePrincipal().userID, after: cursor, limit: try KeysetCursor.limit(page.limit),
                counting: page.counting)
        }
        router.register(PaymentsAPI.listPayments) { request, context in
            try await list(request, principal: context.requirePrincipal())
        }
        router.register(PaymentsAPI.listReceipts) { request, context in
            let policy = AccessPolicy(try context.requirePrincipal())
            guard policy.canSeePayments(of: request.storeID) else {
                throw OrderlyError(.notFound, "no store \(request.storeID)")
            }
            var problems = FieldProblems()
            _ = problems.integer(request.number, "number", in: 1...Int64.max, required: false)
            try problems.check()
            return try await payments.receipts(
                request, takenBy: policy.receiptsTakenBy(in: request.storeID),
                after: try request.page.cursor.map { try KeysetCursor(token: $0) },
                limit: try KeysetCursor.limit(request.page.limit))
        }
        router.register(PaymentsAPI.stats) { request, context in
            let principal = try context.requirePrincipal()
            guard AccessPolicy(principal).canSeeTakings(of: request.storeID) else {
                throw OrderlyError(.notFound, "no store \(request.storeID)")
            }
            let days = try StatsDays(from: request.from, to: request.to)
            let store = try await catalog.call(
                CatalogAPI.getStore, ResourceRef(id: request.storeID), options: WireCallOptions(principal: principal))
            return try await stats.read(request.storeID, days, timezone: store.timezone)
        }
        router.register(PaymentsAPI.shiftSummary) { request, context in
            try await shiftSummary(request, principal: context.requirePrincipal())
        }
        router.register(PaymentsAPI.paymentChanges) { request, context in
            let policy = AccessPolicy(try context.requirePrincipal())
            guard policy.canSeePayments(of: request.storeID) else {
                throw OrderlyError(.notFound, "no store \(request.storeID)")
            }
            guard let since = Int64(digits: request.since) else {
                throw OrderlyError.invalidFields(["since": "must be 0 or a next_cursor this feed returned"])
            }
            let changed = try await payments.changes(
                of: request.storeID, takenBy: policy.receiptsTakenBy(in: request.storeID), since: since,
                limit: try KeysetCursor.limit(request.limit, default: 200, maximum: 1000))
            return PaymentChangesPage(
                data: changed.payments, nextCursor: String(changed.last), hasMore: changed.hasMore)
        }
        router.register(PaymentsAPI.getReceipt) { ref, context in
            let policy = AccessPolicy(try context.requirePrincipal())
            guard let receipt = try await payments.receipt(ref.id),
                let payment = try await payments.payment(receipt.paymentID),
                policy.canSee(receipt: receipt, ofPaymentTakenBy: payment.staffID)
            else { throw OrderlyError(.notFound, "no receipt \(ref.id)") }
            return receipt
        }
    }

    /// Each staff member's shifts and sales over the days asked for (owners, managers, admins):
    /// the shifts clocked in to on those days in the store's time zone, and the statistics'
    /// figures of the payments they took.
    func shiftSummary(_ request: StatsRequest, principal: Principal) async throws -> ShiftSummary {
        guard AccessPolicy(principal).canSeeTakings(of: request.storeID) else {
            throw OrderlyError(.notFound, "no store \(request.storeID)")
        }
        let days = try StatsDays(from: request.from, to: request.to)
        let store = try await catalog.call(
            CatalogAPI.getStore, ResourceRef(id: request.storeID), options: WireCallOptions(principal: principal))
        let sales = try await stats.read(request.storeID, days, timezone: store.timezone).staff
        let now = Date()
        var worked: [UserID: (shifts: Int, seconds: TimeInterval)] = [:]
        for shift in try await shifts.shifts(of: request.storeID, clockedInWithin: days.window)
        where days.contains(StatsContribution.day(of: shift.clockedInAt, in: store.timezone)) {
            let end = shift.clockedOutAt ?? max(now, shift.clockedInAt)
            worked[shift.userID, default: (0, 0)].shifts += 1
            worked[shift.userID, default: (0, 0)].seconds += end.timeIntervalSince(shift.clockedInAt)
        }
        let figures = Dictionary(uniqueKeysWithValues: sales.map { ($0.staffID, $0) })
        let shifts = self.shifts
        let names = try await database.read { sql in
            var names: [UserID: String] = [:]
            for id in Set(worked.keys).subtracting(figures.keys) {
                names[id] = try await shifts.staffMember(id, in: sql)?.name
            }
            return names
        }
        let members = Set(worked.keys).union(figures.keys).map { id in
            ShiftSummary.Member(
                staffID: id, name: figures[id]?.name ?? names[id],
                hoursWorked: ((worked[id]?.seconds ?? 0) / 36).rounded() / 100, shiftsCount: worked[id]?.shifts ?? 0,
                salesCount: figures[id]?.figures.salesCount ?? 0, revenue: figures[id]?.figures.revenue ?? 0)
        }
        return ShiftSummary(
            storeID: request.storeID, from: days.from, to: days.to, timezone: store.timezone,
            staff: members.sorted { ($0.name ?? "", $0.staffID.description) < ($1.name ?? "", $1.staffID.description) })
    }

    func payment(_ id: PaymentID, principal: Principal) async throws -> Payment {
        guard let payment = try await payments.payment(id), AccessPolicy(principal).canSee(payment: payment) else {
            throw OrderlyError(.notFound, "no payment \(id)")
        }
        return payment
    }

    /// A store's payments, newest first, for its owners, managers, admins and accountants; staff see the
    /// ones they took (the store's takings are not theirs to read); another store is 404.
    func list(_ request: PaymentListRequest, principal: Principal) async throws -> Page<Payment> {
        let policy = AccessPolicy(principal)
        guard policy.canSeePayments(of: request.storeID) else {
            throw OrderlyError(.notFound, "no store \(request.storeID)")
        }
        var request = request
        if !policy.canSeeTakings(of: request.storeID) {
            if let staff = request.staffID, staff != principal.userID {
                throw OrderlyError.invalidFields(["staff_id": "may only name yourself"])
            }
            request.staffID = principal.userID
        }
        if let from = request.from, let to = request.to, to <= from {
            throw OrderlyError.invalidFields(["to": "must be after from"])
        }
        return try await payments.list(
            request, after: try request.page.cursor.map { try KeysetCursor(token: $0) },
            limit: try KeysetCursor.limit(request.page.limit))
    }

    /// Rings up a payment: prices catalog items from the catalog, holds the stock of those that
    /// track it, and stores the payment `pending` until `expires_at`.
    func create(_ draft: PaymentDraft, principal: Principal, idempotencyKey: String) async throws -> Payment {
        if principal.role == .customer {
            return try await createOnline(draft, principal: principal, idempotencyKey: idempotencyKey)
        }
        let storeID = try AccessPolicy(principal).storeForWriting(draft.storeID)
        let valid = try draft.validated()
        let scope = "payments.create:\(storeID)"
        let unavailable = OrderlyError(.unavailable, "the request's record lapsed meanwhile; send it again")
        // A repeat is answered from its record as it was, whatever changed since (the order
        // paid, the staff member clocked out), and holds no stock again.
        if try await idempotency.isRepeat(key: idempotencyKey, caller: principal.userID, scope: scope, request: draft) {
            return try await idempotency.write(
                key: idempotencyKey, caller: principal.userID, scope: scope, request: draft
            ) { _ in throw unavailable }
        }
        let options = WireCallOptions(principal: principal)
        let store = try await catalog.call(CatalogAPI.getStore, ResourceRef(id: storeID), options: options)
        let (shifts, customers, cards, book) = (self.shifts, self.customers, self.cards, self.book)
        // Checked before any stock is held, and again under the card's lock as the payment is stored.
        let checked = try await database.read { sql in
            try await book.checkClockedIn(principal, in: store, in: sql)
            return try await Self.payer(draft, card: valid.cardUID, in: storeID, customers, cards, in: sql)
        }
        var order: Order?
        if let orderID = draft.orderID {
            do {
                order = try await orders.call(OrdersAPI.getOrder, ResourceRef(id: orderID), options: options)
            } catch let error as OrderlyError where error.code == .notFound {}
            guard let order, order.storeID == storeID else {
                throw OrderlyError.invalidFields(["order_id": "is not an order of the store"])
            }
            guard order.status != .cancelled else {
                throw OrderlyError(.orderCancelled, "the order is cancelled")
            }
        }
        let paymentID = draft.id ?? PaymentID()
        let items = try await price(valid.lines, in: store, principal: principal)
        guard items.reduce(0, { $0 + $1.total }) + valid.tip <= Payment.maximumAmount else {
            throw OrderlyError(
                .totalTooLarge, "a payment is at most \(Payment.maximumAmount) minor units")
        }
        let hold = try await holdStock(of: items, for: paymentID, in: storeID, valid.pendingSeconds, principal)
        let staffName = try await database.read { try await shifts.staffMember(principal.userID, in: $0)?.name }
        let header = ReceiptHeader(store: store, staffName: staffName)
        let paidFor = order
        let payment: Payment
        do {
            payment = try await idempotency.write(
                key: idempotencyKey, caller: principal.userID, scope: scope, request: draft
            ) { transaction in
                try await book.claim(paymentID, in: transaction)
                if let card = checked.cardID { try await transaction.lock(.card(card)) }
                let payer = try await Self.payer(
                    draft, card: valid.cardUID, in: storeID, customers, cards, in: transaction.sql)
                var subtotal = items.reduce(0) { $0 + $1.total }
                var tip = valid.tip
                if let paidFor {
                    let share = try await book.orderShare(draft.amount, of: paidFor, in: transaction)
                    subtotal = share.subtotal
                    // The order's tip is paid with it unless the request says what the customer tipped.
                    if draft.tip == nil { tip = share.tip }
                }
                let now = Date.currentMillisecond
                var payment = Payment(
                    id: paymentID, storeID: storeID, orderID: draft.orderID, customerID: payer.customerID,
                    customerUserID: payer.customerUserID, cardID: payer.cardID, items: items, subtotal: subtotal,
                    vat: items.reduce(0) { $0 + $1.vat }, tip: tip,
                    currency: store.currency, method: valid.method, status: .pending, staffID: principal.userID,
                    reservationID: hold?.id, expiresAt: now.addingTimeInterval(TimeInterval(valid.pendingSeconds)),
                    createdAt: now)
                try await book.open(&payment, header: header, in: transaction)
                return payment
            }
        } catch {
            if let hold { await stock.giveBack([hold], for: principal) }
            throw error
        }
        // A request replayed meanwhile answers as the first time, which holds another reservation.
        if let hold, payment.reservationID != hold.id { await stock.giveBack([hold], for: principal) }
        return payment
    }

    /// A customer's card payment for their card order (`order_id`, `method: card`, nothing
    /// else): what is left to pay of it and its tip, pending until the provider's signed report
    /// completes or fails it, and expiring when the order's time to be paid runs out.
    private func createOnline(_ draft: PaymentDraft, principal: Principal, idempotencyKey: String) async throws
        -> Payment
    {
        let orderID = try draft.validatedOnline()
        let scope = "payments.online:\(orderID)"
        if try await idempotency.isRepeat(key: idempotencyKey, caller: principal.userID, scope: scope, request: draft) {
            return try await idempotency.write(
                key: idempotencyKey, caller: principal.userID, scope: scope, request: draft
            ) { _ in throw OrderlyError(.unavailable, "the request's record lapsed meanwhile; send it again") }
        }
        let options = WireCallOptions(principal: principal)
        let order: Order
        do {
            order = try await orders.call(OrdersAPI.getOrder, ResourceRef(id: orderID), options: options)
        } catch let error as OrderlyError where error.code == .notFound {
            throw OrderlyError.invalidFields(["order_id": "is not one of your orders"])
        }
        guard AccessPolicy(principal).canPay(order), draft.storeID.map({ $0 == order.storeID }) ?? true else {
            throw OrderlyError.invalidFields(["order_id": "is not one of your orders"])
        }
        guard order.paymentMethod == .card else {
            throw OrderlyError(
                .notCardOrder, "a cash-on-delivery order is paid to the courier")
        }
        guard order.status != .cancelled else {
            throw OrderlyError(.orderCancelled, "the order is cancelled")
        }
        let store = try await catalog.call(CatalogAPI.getStore, ResourceRef(id: order.storeID), options: options)
        let (customers, book) = (self.customers, self.book)
        let paymentID = draft.id ?? PaymentID()
        return try await idempotency.write(
            key: idempotencyKey, caller: principal.userID, scope: scope, request: draft
        ) { transaction in
            try await book.claim(paymentID, in: transaction)
            let share = try await book.orderShare(nil, of: order, in: transaction)
            let now = Date.currentMillisecond
            let record = try await customers.linked(to: principal.userID, in: order.storeID, in: transaction.sql)
            var payment = Payment(
                id: paymentID, storeID: order.storeID, orderID: order.id, customerID: record?.id,
                customerUserID: principal.userID,
                subtotal: share.subtotal, tip: share.tip, currency: order.currency, method: .card, status: .pending,
                staffID: principal.userID,
                expiresAt: order.payBy ?? now.addingTimeInterval(Order.cardPaymentWindow), createdAt: now)
            try await book.open(&payment, header: ReceiptHeader(store: store, staffName: nil), in: transaction)
            return payment
        }
    }

    /// Who a payment is for: an nfc payment's card (the store's, by the uid tapped: 404 when it
    /// has none, 422 `card_blocked` unless active) and the customer it is linked to, or the
    /// store's customer record the draft names (422 naming `customer_id` when it is not one);
    /// with the account the record is linked to.
    static func payer(
        _ draft: PaymentDraft, card uid: String?, in store: StoreID, _ customers: CustomersRepository,
        _ cards: CardsRepository, in sql: any SQLDatabase
    ) async throws -> Payer {
        var customerID = draft.customerID
        var cardID: CardID?
        if let uid {
            guard let card = try await cards.find(uid: uid, in: store, in: sql) else {
                throw OrderlyError(.notFound, "no card \(uid) in the store")
            }
            try card.checkPays()
            if let named = draft.customerID, named != card.customerID {
                throw OrderlyError(
                    .notCardCustomer, "the card tapped is another customer's",
                    details: ["customer_id": .string("is not the customer of the card tapped")])
            }
            customerID = card.customerID
            cardID = card.id
        }
        guard let customerID else { return Payer(customerID: nil, customerUserID: nil, cardID: cardID) }
        let customer = try await customers.customer(customerID, of: store, in: sql)
        return Payer(customerID: customerID, customerUserID: customer.userID, cardID: cardID)
    }

    /// Who a payment is for, as `payer` found it.
    struct Payer: Sendable {
        var customerID: CustomerID?
        var customerUserID: UserID?
        var cardID: CardID?
    }

    /// The payment's lines: catalog products at the catalog's price and VAT rate, free lines as
    /// typed. Every line naming what is not a product of the store is named at once; a product
    /// not for sale is 422 `product_inactive` (`Product.checkForSale`).
    private func price(_ lines: [ValidPaymentDraft.Line], in store: Store, principal: Principal) async throws
        -> [PaymentItem]
    {
        let ids = lines.compactMap { line -> ProductID? in
            if case .product(let id, _) = line { id } else { nil }
        }
        let products = try await stock.sellable(ids, in: store.id, for: principal)
        var problems = FieldProblems()
        var items: [PaymentItem] = []
        for (index, line) in lines.enumerated() {
            do {
                switch line {
                case .product(let id, let quantity):
                    guard let product = products[id] else {
                        problems.add("items[\(index)].product_id", "is not a product of the store")
                        continue
                    }
                    try product.checkForSale(field: "items[\(index)].product_id")
                    items.append(
                        try PaymentItem(
                            productID: id, name: product.name, unitPrice: product.price, quantity: quantity,
                            vatRateBP: product.vatRateBP, tracked: product.trackStock))
                case .free(let name, let unitPrice, let quantity, let rate):
                    items.append(
                        try PaymentItem(
                            productID: nil, name: name, unitPrice: unitPrice, quantity: quantity, vatRateBP: rate,
                            tracked: false))
                }
            } catch {
                guard error.code == .invalidArgument else { throw error }
                for (field, reason) in error.details ?? [:] {
                    if case .string(let text) = reason { problems.add("items[\(index)].\(field)", text) }
                }
            }
        }
        try problems.check()
        return items
    }

    /// Holds the stock of the tracked items for the payment, until a while after it would
    /// expire; nil when no item tracks stock.
    private func holdStock(
        of items: [PaymentItem], for payment: PaymentID, in store: StoreID, _ pendingSeconds: Int,
        _ principal: Principal
    ) async throws -> Reservation? {
        let lines = items.indices.compactMap { index in
            items[index].tracked
                ? items[index].productID.map {
                    StockHolds.Line(productID: $0, quantity: items[index].quantity, field: "items[\(index)]")
                } : nil
        }
        return try await stock.hold(
            lines, for: .payment(payment), in: store, reference: "payment \(payment)",
            expiringIn: pendingSeconds + PaymentsAPI.stockGraceSeconds, for: principal
        ).first
    }

    /// Completes a pending cash payment with the cash handed over: `change_due` is what is
    /// given back; less than the amount is 422 naming `amount_tendered`.
    func confirm(_ request: CashConfirmation, principal: Principal, idempotencyKey: String?) async throws -> Payment {
        try await change(
            request.paymentID, by: principal, idempotencyKey: idempotencyKey, scope: "payments.confirm",
            request: request
        ) { payment, now in
            guard payment.method == .cash else {
                throw OrderlyError(
                    .providerPayment,
                    "\(ErrorTexts.withArticle(payment.method.rawValue)) payment is completed by its provider")
            }
            let tendered = try request.validated()
            try PaymentBook.checkNotDue(payment, at: now)
            try payment.move(to: .completed, at: now)
            guard tendered >= payment.amount else {
                throw OrderlyError(
                    .failedPrecondition, "the cash handed over is less than the amount",
                    details: ["amount_tendered": .string("must be at least \(payment.amount)")])
            }
            payment.amountTendered = tendered
            payment.changeDue = tendered - payment.amount
        } counting: { payment, transaction in
            try await book.countCash(payment.amount, by: principal.userID, in: payment.storeID, in: transaction)
        }
    }

    /// Cancels a pending or confirmed payment (staff of its store).
    func cancel(_ id: PaymentID, principal: Principal, idempotencyKey: String?) async throws -> Payment {
        try await change(
            id, by: principal, idempotencyKey: idempotencyKey, scope: "payments.cancel", request: ResourceRef(id: id)
        ) { payment, now in
            try payment.move(to: .cancelled, at: now)
        }
    }

    /// Applies a staff member's change to a payment of their store under its lock, as one
    /// keyed write, issuing the receipt when it completes and publishing the status reached.
    private func change(
        _ id: PaymentID, by principal: Principal, idempotencyKey: String?, scope: String,
        request: some Encodable & Sendable,
        _ body: @Sendable @escaping (inout Payment, Date) throws -> Void,
        counting: (@Sendable (Payment, Transaction) async throws -> Void)? = nil
    ) async throws -> Payment {
        let (payments, book) = (self.payments, self.book)
        return try await idempotency.write(
            key: idempotencyKey, caller: principal.userID, scope: "\(scope):\(id)", request: request
        ) { transaction in
            try await transaction.lock(.payment(id))
            let policy = AccessPolicy(principal)
            guard var payment = try await payments.payment(id, in: transaction.sql), policy.canSee(payment: payment)
            else { throw OrderlyError(.notFound, "no payment \(id)") }
            guard policy.canTakePayments(in: payment.storeID) else {
                throw OrderlyError(.permissionDenied, "only the store's users and admins take its payments")
            }
            let now = Date.currentMillisecond
            try body(&payment, now)
            try await counting?(payment, transaction)
            try await book.save(&payment, in: transaction)
            return payment
        }
    }

    /// Expires the pending payments whose time ran out, at most `limit`; returns how many.
    /// Each is expired under its own lock, once, whichever replica gets there first.
    func expireDue(limit: Int) async throws -> Int {
        var expired = 0
        let (payments, book) = (self.payments, self.book)
        for id in try await payments.due(at: Date.currentMillisecond, limit: limit) {
            do {
                let ended = try await database.transaction { transaction in
                    try await transaction.lock(.payment(id))
                    let now = Date.currentMillisecond
                    guard var payment = try await payments.payment(id, in: transaction.sql),
                        payment.status == .pending, let expiresAt = payment.expiresAt, now >= expiresAt
                    else { return false }
                    try payment.move(to: .expired, at: now)
                    try await book.save(&payment, in: transaction)
                    return true
                }
                if ended { expired += 1 }
            } catch {
                // One that cannot be expired holds back none of the others; it is tried again.
                logger.error("a payment could not be expired", metadata: ["payment.id": "\(id)", "error": "\(error)"])
            }
        }
        return expired
    }
}
