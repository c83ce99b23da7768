import Contracts
import Domain
import Foundation
import Logging
import Runtime
import Storage
import TestSupport
import Testing

@testable import Catalog

/// Reservations at the catalog's handlers, on a real database of each kind.
@Suite("Catalog reservations")
struct ReservationServiceTests {
    typealias Setup = ProductStockServiceTests

    static func product(
        _ handlers: CatalogAtHandlers, _ store: Store, _ name: String, quantity: Int64, track: Bool = true
    ) async throws -> Product {
        try await handlers.products.createProduct(
            NewProduct(
                storeID: store.id, product: ProductDraft(name: name, price: 500, trackStock: track, quantity: quantity)),
            principal: Setup.admin, idempotencyKey: nil)
    }

    @Test(
        "of 100 concurrent reservations of one unit against stock 10 exactly 10 hold; commits sell, releases give back",
        arguments: TestDatabase.kinds)
    func concurrentReservations(kind: Database.Kind) async throws {
        try await Setup.with(kind) { handlers, store, test in
            let staff = Principal(userID: UserID(), role: .staff, storeID: store.id)
            let cola = try await Self.product(handlers, store, "Cola", quantity: 10)
            let held = try await withThrowingTaskGroup(of: Reservation?.self) { group in
                for index in 0..<100 {
                    group.addTask {
                        do {
                            return try await handlers.reservations.reserve(
                                NewReservation(
                                    storeID: store.id, lines: [Reservation.Line(productID: cola.id, quantity: 1)]),
                                principal: staff, idempotencyKey: "r-\(index)")
                        } catch let error as OrderlyError where error.reason == .insufficientStock {
                            return nil
                        }
                    }
                }
                return try await group.reduce(into: [Reservation]()) { if let held = $1 { $0.append(held) } }
            }
            #expect(held.count == 10)
            var now = try await handlers.products.product(cola.id, principal: staff)
            #expect(now.quantity == 10 && now.reserved == 10 && now.available == 0 && now.stockStatus == .outOfStock)
            // Three sold, three given back (twice: the repeat changes nothing).
            for reservation in held.prefix(3) {
                #expect(
                    try await handlers.reservations.end(reservation.id, as: .committed, by: staff).status == .committed)
            }
            for reservation in held.dropFirst(3).prefix(3) {
                _ = try await handlers.reservations.end(reservation.id, as: .released, by: staff)
                #expect(
                    try await handlers.reservations.end(reservation.id, as: .released, by: staff).status == .released)
            }
            let closed = await ServiceRulesTests.refusal {
                _ = try await handlers.reservations.end(held[0].id, as: .released, by: staff)
            }
            #expect(closed?.reason == .reservationClosed)
            now = try await handlers.products.product(cola.id, principal: staff)
            #expect(now.quantity == 7 && now.reserved == 4 && now.available == 3)
            let ledger = try await Setup.ledger(of: cola.id, handlers, staff)
            #expect(ledger.map(\.reason) == [.initial, .sale, .sale, .sale])
            #expect(ledger.reduce(0) { $0 + $1.adjustment } == now.quantity)
            #expect(ledger.last?.reference == held[2].id.description)
            // Down to out of stock at the tenth hold (threshold 3 crossed first): one event each.
            let alerts = try await Setup.events(in: test.database).filter { $0.hasPrefix("stock.") }
            #expect(alerts == ["stock.low", "stock.out"])
        }
    }

    @Test("a reservation holds every line or none, naming each short product and each bad line")
    func allOrNone() async throws {
        try await Setup.with(.sqlite) { handlers, store, _ in
            let staff = Principal(userID: UserID(), role: .staff, storeID: store.id)
            let cola = try await Self.product(handlers, store, "Cola", quantity: 5)
            let tea = try await Self.product(handlers, store, "Tea", quantity: 1)
            let bread = try await Self.product(handlers, store, "Bread", quantity: 1)
            let wrap = try await Self.product(handlers, store, "Wrap", quantity: 0, track: false)
            let short = await ServiceRulesTests.refusal {
                _ = try await handlers.reservations.reserve(
                    NewReservation(
                        storeID: store.id,
                        lines: [
                            Reservation.Line(productID: cola.id, quantity: 5),
                            Reservation.Line(productID: tea.id, quantity: 2),
                            Reservation.Line(productID: bread.id, quantity: 3),
                        ]), principal: staff, idempotencyKey: nil)
            }
            #expect(short?.reason == .insufficientStock)
            guard case .array(let named)? = short?.details?["products"] else {
                Issue.record("no products named: \(String(describing: short))")
                return
            }
            let namedIDs = named.map { value -> JSONValue? in
                guard case .object(let fields) = value else { return nil }
                return fields["product_id"]
            }
            #expect(Set(namedIDs) == [.string(tea.id.description), .string(bread.id.description)])
            #expect(try await handlers.products.product(cola.id, principal: staff).reserved == 0)
            let other = try await handlers.stores.createStore(
                StoreDraft(name: "Other"), principal: Setup.admin, idempotencyKey: nil)
            let foreign = try await Self.product(handlers, other, "Foreign", quantity: 5)
            let cases: [(NewReservation, [String])] = [
                (NewReservation(storeID: store.id, lines: []), ["lines"]),
                (
                    NewReservation(
                        storeID: store.id,
                        lines: [
                            Reservation.Line(productID: cola.id, quantity: 0),
                            Reservation.Line(productID: cola.id, quantity: 1),
                        ], expiresInSeconds: 0),
                    ["expires_in_seconds", "lines[0].quantity", "lines[1].product_id"]
                ),
                (
                    NewReservation(
                        storeID: store.id,
                        lines: [
                            Reservation.Line(productID: wrap.id, quantity: 1),
                            Reservation.Line(productID: foreign.id, quantity: 1),
                            Reservation.Line(productID: ProductID(), quantity: 1),
                        ]),
                    ["lines[0].product_id", "lines[1].product_id", "lines[2].product_id"]
                ),
            ]
            for (request, fields) in cases {
                let refusal = await ServiceRulesTests.refusal {
                    _ = try await handlers.reservations.reserve(request, principal: staff, idempotencyKey: nil)
                }
                #expect(refusal?.code == .invalidArgument)
                #expect(refusal?.details?.keys.sorted() == fields, "\(request)")
            }
            let outsider = Principal(userID: UserID(), role: .staff, storeID: other.id)
            let refused = await ServiceRulesTests.refusal {
                _ = try await handlers.reservations.reserve(
                    NewReservation(storeID: store.id, lines: [Reservation.Line(productID: cola.id, quantity: 1)]),
                    principal: outsider, idempotencyKey: nil)
            }
            #expect(refused?.code == .notFound)
            // A product a reservation holds keeps tracking its stock until it is released.
            let held = try await handlers.reservations.reserve(
                NewReservation(storeID: store.id, lines: [Reservation.Line(productID: cola.id, quantity: 1)]),
                principal: staff, idempotencyKey: nil)
            let untrack = await ServiceRulesTests.refusal {
                _ = try await handlers.products.updateProduct(
                    ProductPatch(id: cola.id, expectedVersion: nil, changes: ProductDraft(trackStock: false)),
                    principal: Setup.admin, idempotencyKey: nil)
            }
            #expect(untrack?.details?.keys.sorted() == ["track_stock"])
            _ = try await handlers.reservations.end(held.id, as: .released, by: staff)
            #expect(
                try await handlers.products.updateProduct(
                    ProductPatch(id: cola.id, expectedVersion: nil, changes: ProductDraft(trackStock: false)),
                    principal: Setup.admin, idempotencyKey: nil
                ).trackStock == false)
        }
    }

    @Test(
        "a reservation that falls due while no catalog runs is released by the sweep of the next one to start",
        arguments: TestDatabase.kinds)
    func expiryAcrossRestart(kind: Database.Kind) async throws {
        try await Setup.with(kind) { handlers, store, test in
            let staff = Principal(userID: UserID(), role: .staff, storeID: store.id)
            let cola = try await Self.product(handlers, store, "Cola", quantity: 3)
            let reservation = try await handlers.reservations.reserve(
                NewReservation(
                    storeID: store.id, lines: [Reservation.Line(productID: cola.id, quantity: 2)], expiresInSeconds: 1),
                principal: staff, idempotencyKey: nil)
            // Nothing sweeps while the reservation falls due.
            let due = try #require(reservation.expiresAt)
            #expect(await waitUntil { Date() > due })
            let late = await ServiceRulesTests.refusal {
                _ = try await handlers.reservations.end(reservation.id, as: .committed, by: staff)
            }
            #expect(late?.reason == .reservationExpired)
            #expect(try await handlers.products.product(cola.id, principal: staff).reserved == 2)
            // A catalog starts over the same database: its sweep finds what fell due.
            let restarted = CatalogAtHandlers(database: test.database)
            let sweep = DueSweep("reservations", every: .seconds(60), logger: Logger(label: "test")) {
                try await restarted.reservations.expireDue(limit: $0)
            }
            let task = Task { try await sweep.run() }
            defer { task.cancel() }
            #expect(
                await waitUntil {
                    (try? await restarted.reservations.reservation(reservation.id, principal: staff).status) == .expired
                })
            let after = try await restarted.products.product(cola.id, principal: staff)
            #expect(after.reserved == 0 && after.quantity == 3)
            #expect(try await restarted.reservations.end(reservation.id, as: .released, by: staff).status == .expired)
        }
    }

    @Test(
        "a payment's hold follows its latest version: a confirmation read after the cancellation that followed it holds nothing again",
        arguments: TestDatabase.kinds)
    func paymentHolds(kind: Database.Kind) async throws {
        try await Setup.with(kind) { handlers, store, test in
            let staff = Principal(userID: UserID(), role: .staff, storeID: store.id)
            let cola = try await Self.product(handlers, store, "Cola", quantity: 10)
            let payment = PaymentID()
            let hold = try await handlers.reservations.reserve(
                NewReservation(
                    storeID: store.id, paymentID: payment, lines: [Reservation.Line(productID: cola.id, quantity: 4)],
                    expiresInSeconds: 600),
                principal: staff, idempotencyKey: nil, caller: PaymentsAPI.service)
            let holds = PaymentHoldsFollower(
                book: handlers.reservations.book, logger: Logger(label: "test"))
            func follow(_ status: PaymentStatus, version: Int64) async throws {
                let view = PaymentStock(id: payment, version: version, status: status, reservationID: hold.id)
                try await test.database.transaction { try await holds.follow(view, reservation: hold.id, in: $0) }
            }
            func reserved() async throws -> Int64 {
                try await handlers.products.product(cola.id, principal: staff).reserved
            }
            try await follow(.confirmed, version: 2)
            #expect(try await handlers.reservations.reservation(hold.id, principal: staff).expiresAt == nil)
            try await follow(.cancelled, version: 3)
            #expect(try await reserved() == 0)
            // The confirmation again, late: nothing is held again.
            try await follow(.processing, version: 2)
            #expect(try await handlers.reservations.reservation(hold.id, principal: staff).status == .released)
            #expect(try await reserved() == 0)
            // Only the payments service names a payment.
            let named = await ServiceRulesTests.refusal {
                _ = try await handlers.reservations.reserve(
                    NewReservation(
                        storeID: store.id, paymentID: payment,
                        lines: [Reservation.Line(productID: cola.id, quantity: 1)]),
                    principal: staff, idempotencyKey: nil)
            }
            #expect(named?.details?.keys.sorted() == ["payment_id"])
        }
    }

    @Test(
        "an order's holds follow its latest version: kept without a time limit, shrunk, released on removal, an older version ignored",
        arguments: TestDatabase.kinds)
    func orderHolds(kind: Database.Kind) async throws {
        try await Setup.with(kind) { handlers, store, test in
            let staff = Principal(userID: UserID(), role: .staff, storeID: store.id)
            let cola = try await Self.product(handlers, store, "Cola", quantity: 10)
            let order = OrderID()
            func hold(_ units: Int64) async throws -> Reservation {
                try await handlers.reservations.reserve(
                    NewReservation(
                        storeID: store.id, orderID: order,
                        lines: [Reservation.Line(productID: cola.id, quantity: units)],
                        expiresInSeconds: 600),
                    principal: staff, idempotencyKey: nil, caller: OrdersAPI.service)
            }
            let first = try await hold(3)
            let second = try await hold(2)
            let stray = try await hold(1)  // never stored on a line: it expires on its own
            let holds = OrderHoldsFollower(
                book: handlers.reservations.book, logger: Logger(label: "test"))
            func reconcile(version: Int64, status: OrderStatus = .pending, quantity: Int, ids: [ReservationID]?)
                async throws
            {
                let view = OrderStock(
                    id: order, version: version, status: status,
                    items: ids.map { [OrderStock.Line(quantity: quantity, reservationIDs: $0)] } ?? [])
                try await test.database.transaction { try await holds.reconcile(view, in: $0) }
            }
            func reserved() async throws -> Int64 {
                try await handlers.products.product(cola.id, principal: staff).reserved
            }

            try await reconcile(version: 2, quantity: 5, ids: [first.id, second.id])
            #expect(try await handlers.reservations.reservation(first.id, principal: staff).expiresAt == nil)
            #expect(try await handlers.reservations.reservation(stray.id, principal: staff).expiresAt != nil)
            #expect(try await reserved() == 6)
            // The line shrinks to 2: the newest reservation gives back first.
            try await reconcile(version: 3, quantity: 2, ids: [first.id, second.id])
            #expect(try await handlers.reservations.reservation(second.id, principal: staff).status == .released)
            #expect(try await reserved() == 3)
            // An older version arriving late changes nothing.
            try await reconcile(version: 2, quantity: 5, ids: [first.id, second.id])
            #expect(try await reserved() == 3)
            // The line is removed: its held reservation goes; the stray one is left to expire.
            try await reconcile(version: 4, quantity: 0, ids: nil)
            #expect(try await handlers.reservations.reservation(first.id, principal: staff).status == .released)
            #expect(try await handlers.reservations.reservation(stray.id, principal: staff).status == .held)
            #expect(try await reserved() == 1)
            // A line removed before the catalog saw it listed names its reservation in the change.
            try await test.database.transaction {
                try await holds.reconcile(
                    OrderStock(id: order, version: 5, status: .pending, items: []), removed: [stray.id], in: $0)
            }
            #expect(try await handlers.reservations.reservation(stray.id, principal: staff).status == .released)
            #expect(try await reserved() == 0)
            // Only the orders service names an order.
            let named = await ServiceRulesTests.refusal {
                _ = try await handlers.reservations.reserve(
                    NewReservation(
                        storeID: store.id, orderID: order, lines: [Reservation.Line(productID: cola.id, quantity: 1)]),
                    principal: staff, idempotencyKey: nil)
            }
            #expect(named?.details?.keys.sorted() == ["order_id"])
        }
    }

    @Test(
        "units held are sold even when the product no longer has them, and negative stock stays allowed while it is owed"
    )
    func heldUnitsAlwaysSell() async throws {
        try await Setup.with(.sqlite) { handlers, store, _ in
            let staff = Principal(userID: UserID(), role: .staff, storeID: store.id)
            var draft = ProductDraft(name: "Bread", price: 500, trackStock: true, quantity: 0)
            draft.allowNegativeStock = true
            let bread = try await handlers.products.createProduct(
                NewProduct(storeID: store.id, product: draft), principal: Setup.admin, idempotencyKey: nil)
            let held = try await handlers.reservations.reserve(
                NewReservation(storeID: store.id, lines: [Reservation.Line(productID: bread.id, quantity: 2)]),
                principal: staff, idempotencyKey: nil)
            let strict = await ServiceRulesTests.refusal {
                _ = try await handlers.products.updateProduct(
                    ProductPatch(id: bread.id, expectedVersion: nil, changes: ProductDraft(allowNegativeStock: false)),
                    principal: Setup.admin, idempotencyKey: nil)
            }
            #expect(strict?.details?.keys.sorted() == ["allow_negative_stock"])
            #expect(try await handlers.reservations.end(held.id, as: .committed, by: staff).status == .committed)
            let after = try await handlers.products.product(bread.id, principal: staff)
            #expect(after.quantity == -2 && after.reserved == 0)
        }
    }
}
