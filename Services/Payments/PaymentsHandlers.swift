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
/// catalog follows the payment's events (its `PaymentsFollower`): kept while a provider works on
/// it, sold when it completes, given back when it fails, is cancelled or expires.
struct PaymentsHandlers: Sendable {
    let database: Database
    let catalog: any WireCaller
    let orders: any WireCaller
    let logger: Logger

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
        let (shifts, customers, cards) = (self.shifts, self.customers, self.cards)
        // Checked before any stock is held, and again under the card's lock as the payment is stored.
        let checked = try await database.read { sql in
            try await ShiftsHandlers.checkClockedIn(principal, in: store, shifts, in: sql)
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
                throw OrderlyError(.failedPrecondition, "the order is cancelled", reason: "order_cancelled")
            }
        }
        let paymentID = draft.id ?? PaymentID()
        let items = try await price(valid.lines, in: store, options: options)
        guard items.reduce(0, { $0 + $1.total }) + valid.tip <= Payment.maximumAmount else {
            throw OrderlyError(
                .failedPrecondition, "a payment is at most \(Payment.maximumAmount) minor units",
                reason: "total_too_large")
        }
        let hold = try await holdStock(of: items, for: paymentID, in: storeID, valid.pendingSeconds, options)
        let payments = self.payments
        let staffName = try await database.read { try await shifts.staffMember(principal.userID, in: $0)?.name }
        let header = ReceiptHeader(store: store, staffName: staffName)
        let paidFor = order
        let payment: Payment
        do {
            payment = try await idempotency.write(
                key: idempotencyKey, caller: principal.userID, scope: scope, request: draft
            ) { transaction in
                try await Self.claim(paymentID, payments, in: transaction)
                if let card = checked.cardID { try await transaction.lock("payments.card:\(card)") }
                let payer = try await Self.payer(
                    draft, card: valid.cardUID, in: storeID, customers, cards, in: transaction.sql)
                var subtotal = items.reduce(0) { $0 + $1.total }
                var tip = valid.tip
                if let paidFor {
                    let share = try await Self.orderShare(draft.amount, of: paidFor, payments, in: transaction)
                    subtotal = share.subtotal
                    // The order's tip is paid with it unless the request says what the customer tipped.
                    if draft.tip == nil { tip = share.tip }
                }
                let now = Date.currentMillisecond
                let payment = Payment(
                    id: paymentID, storeID: storeID, orderID: draft.orderID, customerID: payer.customerID,
                    customerUserID: payer.customerUserID, cardID: payer.cardID, items: items, subtotal: subtotal,
                    vat: items.reduce(0) { $0 + $1.vat }, tip: tip,
                    currency: store.currency, method: valid.method, status: .pending, staffID: principal.userID,
                    reservationID: hold?.id, expiresAt: now.addingTimeInterval(TimeInterval(valid.pendingSeconds)),
                    createdAt: now)
                try await payments.insert(payment, header: header, in: transaction)
                transaction.publish(try PaymentsEvents.reached(payment))
                return payment
            }
        } catch {
            if let hold { await giveBack(hold, principal) }
            throw error
        }
        // A request replayed meanwhile answers as the first time, which holds another reservation.
        if let hold, payment.reservationID != hold.id { await giveBack(hold, principal) }
        return payment
    }

    /// A customer's card payment for their card order (`order_id`, `method: card`, nothing
    /// else): what is left to pay of it and its tip, pending until the provider's signed report
    /// completes or fails it, and expiring when the order's time to be paid runs out.
    private func createOnline(_ draft: PaymentDraft, principal: Principal, idempotencyKey: String) async throws
        -> Payment
    {
        var problems = FieldProblems()
        let orderID = problems.required(draft.orderID, "order_id")
        if draft.method != .card { problems.add("method", "must be card: a customer pays online by card") }
        for (field, given) in [
            ("items", draft.items != nil), ("amount", draft.amount != nil), ("tip", draft.tip != nil),
            ("customer_id", draft.customerID != nil), ("expires_in_seconds", draft.expiresInSeconds != nil),
        ] where given {
            problems.add(field, "is the order's: a customer pays what is left of it")
        }
        guard let orderID, problems.isEmpty else { throw problems.failure }
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
                .failedPrecondition, "a cash-on-delivery order is paid to the courier", reason: "not_card_order")
        }
        guard order.status != .cancelled else {
            throw OrderlyError(.failedPrecondition, "the order is cancelled", reason: "order_cancelled")
        }
        let store = try await catalog.call(CatalogAPI.getStore, ResourceRef(id: order.storeID), options: options)
        let (payments, customers) = (self.payments, self.customers)
        let paymentID = draft.id ?? PaymentID()
        return try await idempotency.write(
            key: idempotencyKey, caller: principal.userID, scope: scope, request: draft
        ) { transaction in
            try await Self.claim(paymentID, payments, in: transaction)
            let share = try await Self.orderShare(nil, of: order, payments, in: transaction)
            let now = Date.currentMillisecond
            let record = try await customers.linked(to: principal.userID, in: order.storeID, in: transaction.sql)
            let payment = Payment(
                id: paymentID, storeID: order.storeID, orderID: order.id, customerID: record?.id,
                customerUserID: principal.userID,
                subtotal: share.subtotal, tip: share.tip, currency: order.currency, method: .card, status: .pending,
                staffID: principal.userID,
                expiresAt: order.payBy ?? now.addingTimeInterval(Order.cardPaymentWindow), createdAt: now)
            try await payments.insert(payment, header: ReceiptHeader(store: store, staffName: nil), in: transaction)
            transaction.publish(try PaymentsEvents.reached(payment))
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
                    .failedPrecondition, "the card tapped is another customer's", reason: "not_card_customer",
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

    /// Takes the lock of a new payment's id, refusing an id already taken (409 naming `id`).
    private static func claim(_ id: PaymentID, _ payments: PaymentsRepository, in transaction: Transaction)
        async throws
    {
        try await transaction.lock(PaymentsRepository.lock(ofPayment: id))
        if try await payments.payment(id, in: transaction.sql) != nil {
            throw OrderlyError(.conflict, "a payment \(id) exists already", details: ["id": .string("is taken")])
        }
    }

    /// What a payment for `order` pays of it: `requested`, or what is left when absent; and what
    /// is left of the order's tip (`Payment.tipShare`: a tip refunded is left to pay again). What
    /// is left counts every payment for the order this service
    /// holds, those still in flight too (unless `completedOnly`), under the order's lock, so two
    /// payments rung up at once cannot both pay the rest.
    static func orderShare(
        _ requested: Int64?, of order: Order, _ payments: PaymentsRepository, in transaction: Transaction,
        completedOnly: Bool = false
    ) async throws -> (subtotal: Int64, tip: Int64) {
        try await transaction.lock(PaymentsRepository.lock(ofOrder: order.id))
        let made = try await payments.payments(of: order.id, in: transaction.sql)
            .filter { !completedOnly || $0.hasCompleted }
        let taken = made.reduce(0) { $0 + $1.orderShare }
        let tipped = made.reduce(0) { $0 + $1.tipShare }
        let left = order.total - taken
        guard left > 0 else {
            throw OrderlyError(.failedPrecondition, "the order is paid in full", reason: "order_paid")
        }
        if let requested, requested > left {
            throw OrderlyError(
                .failedPrecondition, "\(left) of the order is left to pay",
                details: ["amount": .string("must be at most \(left), what is left to pay")])
        }
        return (requested ?? left, max(0, (order.tip ?? 0) - tipped))
    }

    /// The payment's lines: catalog products at the catalog's price and VAT rate, free lines as
    /// typed. Every line naming what is not an active product of the store is named at once.
    private func price(_ lines: [ValidPaymentDraft.Line], in store: Store, options: WireCallOptions) async throws
        -> [PaymentItem]
    {
        let catalog = self.catalog
        let ids = lines.compactMap { line -> ProductID? in
            if case .product(let id, _) = line { id } else { nil }
        }
        let products = try await withThrowingTaskGroup(of: Product?.self) { group in
            for id in ids {
                group.addTask {
                    do {
                        return try await catalog.call(CatalogAPI.getProduct, ResourceRef(id: id), options: options)
                    } catch let error as OrderlyError where error.code == .notFound {
                        return nil
                    }
                }
            }
            var found: [ProductID: Product] = [:]
            for try await product in group { if let product { found[product.id] = product } }
            return found
        }
        var problems = FieldProblems()
        var items: [PaymentItem] = []
        for (index, line) in lines.enumerated() {
            do {
                switch line {
                case .product(let id, let quantity):
                    guard let product = products[id], product.storeID == store.id else {
                        problems.add("items[\(index)].product_id", "is not a product of the store")
                        continue
                    }
                    guard product.active else {
                        problems.add("items[\(index)].product_id", "is inactive and cannot be sold")
                        continue
                    }
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
        _ options: WireCallOptions
    ) async throws -> Reservation? {
        let lines = items.compactMap { item in
            item.tracked ? item.productID.map { Reservation.Line(productID: $0, quantity: item.quantity) } : nil
        }
        guard !lines.isEmpty else { return nil }
        do {
            return try await catalog.call(
                CatalogAPI.reserve,
                NewReservation(
                    storeID: store, paymentID: payment, lines: lines, reference: "payment \(payment)",
                    expiresInSeconds: pendingSeconds + PaymentsAPI.stockGraceSeconds),
                options: options)
        } catch let error as OrderlyError where error.code == .invalidArgument {
            // The catalog names the reservation's lines, which are the tracked items in order.
            let tracked = items.indices.filter { items[$0].tracked }
            var fields: [String: String] = [:]
            for (field, reason) in error.details ?? [:] {
                guard case .string(let text) = reason else { continue }
                if let match = field.wholeMatch(of: /lines\[(\d+)\]\.(.+)/), let line = Int(match.1),
                    tracked.indices.contains(line)
                {
                    fields["items[\(tracked[line])].\(match.2)"] = text
                } else {
                    fields[field] = text
                }
            }
            throw OrderlyError.invalidFields(fields)
        }
    }

    private func giveBack(_ hold: Reservation, _ principal: Principal) async {
        // If this fails too, the reservation expires by itself.
        _ = try? await catalog.call(
            CatalogAPI.releaseReservation, ResourceRef(id: hold.id), options: WireCallOptions(principal: principal))
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
                    .failedPrecondition, "a \(payment.method.rawValue) payment is completed by its provider",
                    reason: "provider_payment")
            }
            var problems = FieldProblems()
            let tendered =
                problems.integer(
                    request.amountTendered, "amount_tendered", in: 0...Payment.maximumAmount * 10) ?? 0
            try problems.check()
            try Self.checkNotDue(payment, at: now)
            try payment.move(to: .completed, at: now)
            guard tendered >= payment.amount else {
                throw OrderlyError(
                    .failedPrecondition, "the cash handed over is less than the amount",
                    details: ["amount_tendered": .string("must be at least \(payment.amount)")])
            }
            payment.amountTendered = tendered
            payment.changeDue = tendered - payment.amount
        } counting: { payment, transaction in
            try await ShiftsHandlers.countCash(
                payment.amount, by: principal.userID, in: payment.storeID, shifts, in: transaction)
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
        let payments = self.payments
        return try await idempotency.write(
            key: idempotencyKey, caller: principal.userID, scope: "\(scope):\(id)", request: request
        ) { transaction in
            try await transaction.lock(PaymentsRepository.lock(ofPayment: id))
            let policy = AccessPolicy(principal)
            guard var payment = try await payments.payment(id, in: transaction.sql), policy.canSee(payment: payment)
            else { throw OrderlyError(.notFound, "no payment \(id)") }
            guard policy.canTakePayments(in: payment.storeID) else {
                throw OrderlyError(.permissionDenied, "only the store's users and admins take its payments")
            }
            let now = Date.currentMillisecond
            try body(&payment, now)
            try await counting?(payment, transaction)
            try await Self.save(&payment, payments, in: transaction)
            return payment
        }
    }

    /// Writes a payment that moved, with its receipt when it completed, and publishes the status
    /// it reached. The caller holds its lock.
    static func save(_ payment: inout Payment, _ payments: PaymentsRepository, in transaction: Transaction)
        async throws
    {
        if payment.status == .completed, payment.receiptID == nil {
            let header = try await payments.header(of: payment.id, in: transaction.sql)
            let number = try await transaction.nextSequence("receipts.number.\(payment.storeID)")
            let receipt = Receipt(payment: payment, number: number, header: header)
            payment.receiptID = receipt.id
            try await payments.insert(receipt, in: transaction)
            try await CustomersRepository(database: payments.database).recordPayment(payment, in: transaction)
        }
        try await payments.update(payment, in: transaction)
        transaction.publish(try PaymentsEvents.reached(payment))
    }

    /// Refuses to move a pending payment whose time has run out, even before the sweep expires it.
    static func checkNotDue(_ payment: Payment, at now: Date) throws(OrderlyError) {
        if payment.status == .pending, let expiresAt = payment.expiresAt, now >= expiresAt {
            throw OrderlyError(
                .failedPrecondition, "the payment expired at \(RFC3339.format(expiresAt))", reason: "payment_expired",
                details: ["status": .string("expired"), "allowed": .array([])])
        }
    }

    /// Expires the pending payments whose time ran out, at most `limit`; returns how many.
    /// Each is expired under its own lock, once, whichever replica gets there first.
    func expireDue(limit: Int) async throws -> Int {
        var expired = 0
        let payments = self.payments
        for id in try await payments.due(at: Date.currentMillisecond, limit: limit) {
            do {
                let ended = try await database.transaction { transaction in
                    try await transaction.lock(PaymentsRepository.lock(ofPayment: id))
                    let now = Date.currentMillisecond
                    guard var payment = try await payments.payment(id, in: transaction.sql),
                        payment.status == .pending, let expiresAt = payment.expiresAt, now >= expiresAt
                    else { return false }
                    try payment.move(to: .expired, at: now)
                    try await Self.save(&payment, payments, in: transaction)
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
