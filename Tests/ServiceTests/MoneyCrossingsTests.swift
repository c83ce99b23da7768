import Contracts
import Domain
import Events
import Foundation
import JSON
import Logging
import Runtime
import SQLKit
import Storage
import Synchronization
import TestSupport
import Testing
import Wire

@testable import Payments

/// Where two features of the marketplace meet and the money went wrong between them: each test
/// walks across the two as a user would, through the gateway, and failed before its fix.
@Suite("Money where features cross")
struct MoneyCrossingsTests {
    let api: API
    let checkout: CheckoutTests
    let ledger: LedgerFlowTests

    init() throws {
        api = try API()
        checkout = try CheckoutTests()
        ledger = try LedgerFlowTests()
    }

    /// A cash-on-delivery order of two lemonades with `tip`, delivered by the market's courier
    /// with what is owed collected (nothing when the order was paid before): its id and total.
    func deliveredCashOrder(_ suite: any Suite, _ market: CheckoutTests.Market, tip: Int, payFirst: Bool = false)
        async throws -> (id: String, total: Int)
    {
        let created = try await checkout.checkout(
            suite, market,
            [
                "address_id": market.address, "payment_method": "cash_on_delivery", "tip": tip,
                "items": [["product_id": market.drink, "quantity": 2]],
            ])
        try #require(created.status == 201, "\(created.text)")
        let id = try #require(created.object["id"] as? String)
        let total = try #require(created.object["total"] as? Int)
        for action in ["accept", "start_preparing", "mark_ready"] {
            let reply = try await checkout.act(suite, market.owner, id, action)
            try #require(reply.status == 200, "\(action): \(reply.text)")
        }
        if payFirst {
            try await payFirstAtTill(suite, market, id)
        }
        for action in ["claim", "pick_up"] {
            let reply = try await checkout.act(suite, market.courier, id, action)
            try #require(reply.status == 200, "\(action): \(reply.text)")
        }
        let delivered = try await checkout.act(
            suite, market.courier, id, "deliver", payFirst ? [:] : ["cash_collected": total + tip])
        try #require(delivered.status == 200, "\(delivered.text)")
        return (id, total)
    }

    /// The order rung up at the till by the owner (clocked in) without naming a tip, and
    /// confirmed in cash; the order paid before the courier goes.
    func payFirstAtTill(_ suite: any Suite, _ market: CheckoutTests.Market, _ id: String, tip: Int? = nil)
        async throws
    {
        var body: [String: Any] = ["order_id": id, "method": "cash"]
        body["tip"] = tip
        let rung = try await api.send(
            suite, "POST", "/v1/payments", token: market.owner, json: body,
            headers: ["Idempotency-Key": UUID().uuidString])
        try #require(rung.status == 201, "\(rung.text)")
        let payment = try #require(rung.object["id"] as? String)
        let confirmed = try await api.send(
            suite, "POST", "/v1/payments/\(payment)/confirm", token: market.owner,
            json: ["amount_tendered": rung.object["amount"] as? Int ?? 0])
        try #require(confirmed.status == 200, "\(confirmed.text)")
        #expect(
            try await waitUntil {
                try await checkout.order(suite, market.owner, id)["payment_status"] as? String == "paid"
            })
    }

    /// The store's payments of order `id`, as its owner lists them.
    func payments(of id: String, _ suite: any Suite, _ market: CheckoutTests.Market) async throws -> [[String: Any]] {
        let listed = try await api.send(suite, "GET", "/v1/stores/\(market.store)/payments", token: market.owner)
        return (listed.object["data"] as? [[String: Any]] ?? []).filter { $0["order_id"] as? String == id }
    }

    func clockIn(_ suite: any Suite, _ token: String) async throws {
        try await PaymentFlowTests.clockIn(api, suite, token)
    }

    /// The store's balance as its owner reads it, once `condition` holds of it (or as it is when
    /// the wait ends, the expectation failed).
    func storeFigures(_ suite: any Suite, _ market: CheckoutTests.Market, until condition: (Figures) -> Bool)
        async throws -> Figures
    {
        var figures = Figures()
        #expect(
            try await waitUntil {
                figures = try await ledger.balance(suite, "/v1/stores/\(market.store)/balance", market.owner).0
                return condition(figures)
            }, "\(figures)")
        return figures
    }

    /// A payout of `amount` to the market's store, asked for by its admin.
    func payout(_ suite: any Suite, _ market: CheckoutTests.Market, _ amount: Int) async throws -> Reply {
        try await api.send(
            suite, "POST", "/v1/stores/\(market.store)/payouts", token: market.admin,
            json: ["amount": amount, "currency": "ILS"], headers: ["Idempotency-Key": UUID().uuidString])
    }

    @Test(
        "a till refund of cash a courier collected is paid from the till's cash; the courier still owes what they collected",
        arguments: TestDatabase.kinds)
    func cashOnDeliveryRefundAtTheTill(kind: Database.Kind) async throws {
        try await InProcessSuite.with(on: kind) { suite in
            let market = try await checkout.market(suite)
            let (id, total) = try await deliveredCashOrder(suite, market, tip: 0)
            var collected: [String: Any] = [:]
            #expect(
                try await waitUntil {
                    collected = try await payments(of: id, suite, market).first ?? [:]
                    return collected["status"] as? String == "completed"
                })
            #expect(
                try await waitUntil {
                    try await ledger.balance(suite, "/v1/couriers/me/balance", market.courier).0.cashHeld == total
                })
            // The owner gives it all back from the drawer of their shift.
            try await clockIn(suite, market.owner)
            let refund = try await api.send(
                suite, "POST", "/v1/payments/\(collected["id"] as? String ?? "")/refunds", token: market.owner,
                json: ["reason": "cold"], headers: ["Idempotency-Key": UUID().uuidString])
            #expect(refund.status == 201, "\(refund.text)")
            // The till paid it: the store's cash held falls by it; the courier owes what they collected.
            #expect(
                try await waitUntil {
                    try await ledger.balance(suite, "/v1/stores/\(market.store)/balance", market.owner).0.cashHeld
                        == -total
                })
            let (courier, entries) = try await ledger.balance(suite, "/v1/couriers/me/balance", market.courier)
            #expect(courier.cashHeld == total, "\(courier)")
            #expect(
                !entries.contains { $0["kind"] as? String == "refund" }, "a refund is not the courier's: \(entries)")
        }
    }

    @Test("a courier is credited the tip that was paid: with the till's payment, not when the till took none")
    func tipsCreditedAsPaid() async throws {
        try await InProcessSuite.with { suite in
            let market = try await checkout.market(suite)
            try await clockIn(suite, market.owner)
            let tip = 500_000
            // Rung up without naming a tip: the order's is paid with it.
            let (first, _) = try await deliveredCashOrder(suite, market, tip: tip, payFirst: true)
            let paid = try await payments(of: first, suite, market)
            #expect(paid.map { $0["tip"] as? Int } == [tip], "\(paid)")
            var earned = 0
            #expect(
                try await waitUntil {
                    earned = try await ledger.balance(suite, "/v1/couriers/me/balance", market.courier).0.earned
                    return earned == 3500 + tip
                }, "\(earned)")
            // Rung up with the customer's tip stated as none: the courier earns the fee alone.
            let created = try await checkout.checkout(
                suite, market,
                [
                    "address_id": market.address, "payment_method": "cash_on_delivery", "tip": tip,
                    "items": [["product_id": market.drink, "quantity": 2]],
                ])
            let second = try #require(created.object["id"] as? String, "\(created.text)")
            for action in ["accept", "start_preparing", "mark_ready"] {
                #expect(try await checkout.act(suite, market.owner, second, action).status == 200)
            }
            try await payFirstAtTill(suite, market, second, tip: 0)
            for action in ["claim", "pick_up", "deliver"] {
                let reply = try await checkout.act(suite, market.courier, second, action)
                #expect(reply.status == 200, "\(action): \(reply.text)")
            }
            #expect(
                try await waitUntil {
                    let (_, entries) = try await ledger.balance(suite, "/v1/couriers/me/balance", market.courier)
                    return entries.contains { $0["reference"] as? String == "delivery:\(second)" }
                })
            earned = try await ledger.balance(suite, "/v1/couriers/me/balance", market.courier).0.earned
            #expect(earned == 3500 + tip + 3500, "the second delivery's fee alone: \(earned)")
        }
    }

    @Test("cash collected at the door beside a till payment nobody completed is booked; the till's is cancelled")
    func cashCollectedBesideAPendingTillPayment() async throws {
        try await InProcessSuite.with { suite in
            let market = try await checkout.market(suite)
            let created = try await checkout.checkout(
                suite, market,
                [
                    "address_id": market.address, "payment_method": "cash_on_delivery", "tip": 300,
                    "items": [["product_id": market.drink, "quantity": 2]],
                ])
            let id = try #require(created.object["id"] as? String, "\(created.text)")
            let total = try #require(created.object["total"] as? Int)
            for action in ["accept", "start_preparing", "mark_ready"] {
                #expect(try await checkout.act(suite, market.owner, id, action).status == 200)
            }
            // Rung up at the till, never confirmed.
            let rung = try await api.send(
                suite, "POST", "/v1/payments", token: market.owner, json: ["order_id": id, "method": "cash"],
                headers: ["Idempotency-Key": UUID().uuidString])
            let pending = try #require(rung.object["id"] as? String, "\(rung.text)")
            for action in ["claim", "pick_up"] {
                #expect(try await checkout.act(suite, market.courier, id, action).status == 200)
            }
            let delivered = try await checkout.act(
                suite, market.courier, id, "deliver", ["cash_collected": total + 300])
            #expect(delivered.status == 200, "\(delivered.text)")
            #expect(
                try await waitUntil {
                    try await checkout.order(suite, market.owner, id)["payment_status"] as? String == "paid"
                })
            let made = try await payments(of: id, suite, market)
            #expect(made.first { $0["id"] as? String == pending }?["status"] as? String == "cancelled", "\(made)")
            #expect(
                made.contains { $0["collected_on_delivery"] as? Bool == true && $0["amount"] as? Int == total + 300 },
                "\(made)")
            #expect(
                try await waitUntil {
                    try await ledger.balance(suite, "/v1/couriers/me/balance", market.courier).0.cashHeld == total + 300
                })
        }
    }

    /// A paid card order of the market's customer, pending (the store has not accepted it): its
    /// id and the payment's.
    func paidCardOrder(_ suite: any Suite, _ market: CheckoutTests.Market, tip: Int = 0) async throws -> (
        String, String
    ) {
        let created = try await checkout.checkout(
            suite, market,
            [
                "address_id": market.address, "payment_method": "card", "tip": tip,
                "items": [["product_id": market.drink, "quantity": 2]],
            ])
        let id = try #require(created.object["id"] as? String, "\(created.text)")
        let pay = try await api.send(
            suite, "POST", "/v1/payments", token: market.customer, json: ["order_id": id, "method": "card"],
            headers: ["Idempotency-Key": UUID().uuidString])
        let payment = try #require(pay.object["id"] as? String, "\(pay.text)")
        let report = try await checkout.payments.report(
            suite, payment: payment, type: "completed", amount: pay.object["amount"] as? Int)
        try #require(report.status == 200, "\(report.text)")
        #expect(
            try await waitUntil {
                try await checkout.order(suite, market.owner, id)["payment_status"] as? String == "paid"
            })
        return (id, payment)
    }

    @Test("a customer paying again after a refund pays what it gave back, the tip it gave back with it")
    func payingAgainAfterARefund() async throws {
        try await InProcessSuite.with { suite in
            let market = try await checkout.market(suite)
            let (order, payment) = try await paidCardOrder(suite, market, tip: 1200)
            let paid = try await api.send(suite, "GET", "/v1/payments/\(payment)", token: market.owner)
            let amount = try #require(paid.object["amount"] as? Int, "\(paid.text)")
            let refund = try await api.send(
                suite, "POST", "/v1/payments/\(payment)/refunds", token: market.owner,
                json: ["amount": amount - 1000, "reason": "out of pita"],
                headers: ["Idempotency-Key": UUID().uuidString])
            try #require(refund.status == 201, "\(refund.text)")
            // 1,000 kept of what was paid: the refund gave back the tip first, so the tip is due again.
            let again = try await api.send(
                suite, "POST", "/v1/payments", token: market.customer, json: ["order_id": order, "method": "card"],
                headers: ["Idempotency-Key": UUID().uuidString])
            #expect(again.status == 201, "\(again.text)")
            #expect(
                again.object["amount"] as? Int == amount - 1000 && again.object["tip"] as? Int == 1200, "\(again.text)")
        }
    }

    @Test(
        "cancelling a paid order refunds it only for one who may refund that much; support's refund names them and why",
        arguments: TestDatabase.kinds)
    func cancelsRefundWithinTheCancellersLimit(kind: Database.Kind) async throws {
        try await InProcessSuite.with(on: kind) { suite in
            let market = try await checkout.market(suite)
            _ = try await api.createUser(
                suite, admin: market.admin, ["email": "staff@f.com", "role": "staff", "store_id": market.store])
            _ = try await api.createUser(suite, admin: market.admin, ["email": "desk@orderly.test", "role": "support"])
            let (staff, support) = (
                try await api.token(suite, "staff@f.com"), try await api.token(suite, "desk@orderly.test")
            )
            let (first, payment) = try await paidCardOrder(suite, market)
            // The store lets staff refund nothing (its default): the cancel is refused, nothing refunded.
            let refused = try await checkout.act(suite, staff, first, "cancel", ["reason": "no rider"])
            #expect(
                refused.status == 422 && refused.error["reason"] as? String == "refund_not_allowed", "\(refused.text)")
            #expect(try await checkout.order(suite, market.owner, first)["status"] as? String == "pending")
            // An order on its way cannot be cancelled at all: that is what the answer says, whatever
            // its refund would be (the model test found refund_not_allowed here).
            let (onItsWay, _) = try await paidCardOrder(suite, market)
            for (token, action) in [
                (market.owner, "accept"), (market.owner, "start_preparing"), (market.owner, "mark_ready"),
                (market.courier, "claim"), (market.courier, "pick_up"),
            ] {
                let moved = try await checkout.act(suite, token, onItsWay, action)
                try #require(moved.status == 200, "\(action): \(moved.text)")
            }
            let late = try await checkout.act(suite, staff, onItsWay, "cancel", ["reason": "no rider"])
            #expect(late.status == 422 && late.error["reason"] as? String == "illegal_transition", "\(late.text)")
            // Within a limit, but not clocked in: refused too.
            let raised = try await api.send(
                suite, "PATCH", "/v1/stores/\(market.store)", token: market.owner, json: ["staff_refund_limit": 100_000]
            )
            #expect(raised.status == 200, "\(raised.text)")
            let unclocked = try await checkout.act(suite, staff, first, "cancel", ["reason": "no rider"])
            #expect(unclocked.status == 422 && unclocked.error["reason"] as? String == "refund_not_allowed")
            try await clockIn(suite, staff)
            let cancelled = try await checkout.act(suite, staff, first, "cancel", ["reason": "no rider"])
            #expect(cancelled.status == 200, "\(cancelled.text)")
            #expect(
                try await waitUntil {
                    let read = try await api.send(suite, "GET", "/v1/payments/\(payment)", token: market.owner)
                    return read.object["status"] as? String == "refunded"
                })
            // The support desk may cancel a paid order: the refund is theirs, with their reason, in the feed.
            let (second, _) = try await paidCardOrder(suite, market)
            let bySupport = try await checkout.act(suite, support, second, "cancel", ["reason": "customer called"])
            #expect(bySupport.status == 200, "\(bySupport.text)")
            let supportID = try await TillTests.me(api, suite, support)
            var refund: [String: Any]?
            #expect(
                try await waitUntil {
                    let feed = try await api.send(
                        suite, "GET", "/v1/stores/\(market.store)/activity", token: market.owner)
                    refund = (feed.object["data"] as? [[String: Any]] ?? []).first {
                        $0["type"] as? String == "refund"
                            && ($0["data"] as? [String: Any])?["order_id"] as? String == second
                    }
                    return refund != nil
                })
            #expect((refund?["data"] as? [String: Any])?["user_id"] as? String == supportID, "\(refund ?? [:])")
            #expect((refund?["subtitle"] as? String)?.contains("customer called") == true, "\(refund ?? [:])")
        }
    }

    @Test("a cancel the gateway allowed a staff member is refunded, though their shift closed before it was booked")
    func cancelRefundedAfterTheShiftCloses() async throws {
        try await InProcessSuite.with { suite in
            let market = try await checkout.market(suite)
            _ = try await api.createUser(
                suite, admin: market.admin, ["email": "staff@f.com", "role": "staff", "store_id": market.store])
            let staff = try #require(
                UserID(try await TillTests.me(api, suite, try await api.token(suite, "staff@f.com"))))
            let raised = try await api.send(
                suite, "PATCH", "/v1/stores/\(market.store)", token: market.owner, json: ["staff_refund_limit": 100_000]
            )
            try #require(raised.status == 200, "\(raised.text)")
            let (id, payment) = try await paidCardOrder(suite, market)
            // The staff member's cancel as the payments service reads it, their shift closed
            // meanwhile (here: none open).
            var order = try await suite.orders.call(
                OrdersAPI.getOrder, ResourceRef(id: try #require(OrderID(id))),
                options: WireCallOptions(principal: Principal(userID: UserID(), role: .admin, storeID: nil)))
            order.status = .cancelled
            let change = OrderChange(
                order: order,
                change: OrderHistoryEntry(
                    seq: 9, orderID: order.id, at: Date(), actorID: staff, actorRole: .staff, change: "status",
                    from: .pending, to: .cancelled))
            let follower = OrderMoneyFollower(
                database: suite.paymentsDatabase, catalog: suite.catalog.caller(as: PaymentsAPI.service),
                logger: Logger(label: "test"))
            try await follower.apply(
                DomainEvent(
                    type: OrdersAPI.Events.statusChanged, storeID: order.storeID, aggregateID: id,
                    payload: try EventPayload(encoding: change)))
            let read = try await api.send(suite, "GET", "/v1/payments/\(payment)", token: market.owner)
            #expect(read.object["status"] as? String == "refunded", "\(read.text)")
        }
    }

    @Test("supervisors approve restaurants; supervisors and support change no line, price, fee or cash of an order")
    func supervisorsApproveAndTouchNoMoney() async throws {
        try await InProcessSuite.with { suite in
            let admin = try await api.admin(suite)
            _ = try await api.createUser(suite, admin: admin, ["email": "ops@orderly.test", "role": "supervisor"])
            let supervisor = try await api.token(suite, "ops@orderly.test")
            let applied = try await api.send(suite, "POST", "/v1/applications", json: ApplicationsTests.restaurant)
            try #require(applied.status == 201, "\(applied.text)")
            try await suite.verifyMailedAddress(
                try #require(ApplicationsTests.restaurant["email"] as? String), api: api)
            let approved = try await api.send(
                suite, "POST", "/v1/applications/\(applied.object["id"] as? String ?? "")/approve", token: supervisor)
            #expect(approved.status == 200 && approved.object["store_id"] is String, "\(approved.text)")
            // A store of their own making has no terms of theirs: only admins set them.
            let terms = try await api.send(
                suite, "POST", "/v1/stores", token: supervisor, json: ["name": "Kiosk", "commission_bp": 0])
            #expect(terms.status == 403, "\(terms.text)")
            let market = try await checkout.market(suite)
            let (id, _) = try await paidCardOrder(suite, market)
            let line = try await api.send(
                suite, "POST", "/v1/orders/\(id)/items", token: supervisor,
                json: ["description": "Extra", "unit_price_gross": 100_000, "quantity": 1])
            #expect(line.status == 403, "\(line.text)")
            let boxes = try await api.send(
                suite, "PATCH", "/v1/orders/\(id)", token: supervisor, json: ["boxes_count": 20])
            #expect(boxes.status == 403, "\(boxes.text)")
            let notes = try await api.send(
                suite, "PATCH", "/v1/orders/\(id)", token: supervisor, json: ["notes": "gate 2"])
            #expect(notes.status == 200, "a supervisor still keeps an order's details: \(notes.text)")
            // Delivered by a supervisor (who may do any transition), but with no cash of their saying.
            for action in ["accept", "start_preparing", "mark_ready"] {
                #expect(try await checkout.act(suite, market.owner, id, action).status == 200)
            }
            #expect(try await checkout.act(suite, market.courier, id, "claim").status == 200)
            #expect(try await checkout.act(suite, market.courier, id, "pick_up").status == 200)
            let cash = try await checkout.act(suite, supervisor, id, "deliver", ["cash_collected": 1])
            #expect(cash.status == 403 || cash.status == 400, "\(cash.text)")
            #expect(try await checkout.order(suite, market.owner, id)["status"] as? String == "out_for_delivery")
        }
    }

    @Test("a courier's entries show their own postings: no store's account, no commission")
    func courierReadsOwnPostings() async throws {
        try await InProcessSuite.with { suite in
            let market = try await checkout.market(suite)
            let set = try await api.send(
                suite, "PATCH", "/v1/stores/\(market.store)", token: market.admin, json: ["commission_bp": 1500])
            #expect(set.status == 200, "\(set.text)")
            _ = try await deliveredCashOrder(suite, market, tip: 200)
            var entries: [[String: Any]] = []
            #expect(
                try await waitUntil {
                    entries = try await ledger.balance(suite, "/v1/couriers/me/balance", market.courier).1
                    return entries.count == 2
                })
            for entry in entries {
                let id = entry["id"] as? String ?? ""
                #expect(id == id.lowercased() && UUID(uuidString: id) != nil, "an id as every id: \(id)")
                let accounts = (entry["postings"] as? [[String: Any]] ?? []).compactMap { $0["account"] as? String }
                #expect(!accounts.isEmpty && accounts.allSatisfy { $0.hasPrefix("courier") }, "\(entry)")
                #expect(entry["commission"] == nil, "\(entry)")
            }
            // The accountant reads them whole.
            _ = try await api.createUser(
                suite, admin: market.admin, ["email": "books@orderly.test", "role": "accountant"])
            let accountant = try await api.token(suite, "books@orderly.test")
            let courierID = try await TillTests.me(api, suite, market.courier)
            let whole = try await ledger.balance(suite, "/v1/couriers/\(courierID)/balance", accountant).1
            #expect(whole.contains { ($0["postings"] as? [Any])?.count == 3 && $0["commission"] as? Int != nil })
        }
    }

    @Test("a customer holds at most three unpaid card orders; a shortage names the products, not how many are left")
    func unpaidHoldsAreLimited() async throws {
        try await InProcessSuite.with { suite in
            let market = try await checkout.market(suite)
            let order: [String: Any] = [
                "address_id": market.address, "payment_method": "card",
                "items": [["product_id": market.falafel, "quantity": 2, "option_ids": [market.small]]],
            ]
            for _ in 0..<3 { #expect(try await checkout.checkout(suite, market, order).status == 201) }
            let fourth = try await checkout.checkout(suite, market, order)
            #expect(fourth.status == 422 && fourth.error["reason"] as? String == "too_many_unpaid", "\(fourth.text)")
            #expect(try await checkout.available(suite, market) == 14, "the fourth held nothing")
            // Cash on delivery is paid at the door: not limited by this.
            var cash = order
            cash["payment_method"] = "cash_on_delivery"
            #expect(try await checkout.checkout(suite, market, cash).status == 201)
            // Another customer asks for more than is left: told which product, not the count.
            let signed = try await api.send(
                suite, "POST", "/v1/auth/register",
                json: ["email": "eve@example.com", "password": "password-123", "name": "Eve Stranger"])
            var other = market
            other.customer = try #require(signed.object["access_token"] as? String, "\(signed.text)")
            var greedy = cash
            greedy["address"] = ["street": "Allenby", "building_no": "3", "phone": "052-9998887"]
            greedy["address_id"] = nil
            greedy["items"] = [["product_id": market.falafel, "quantity": 13, "option_ids": [market.small]]]
            let short = try await checkout.checkout(suite, other, greedy)
            #expect(short.status == 409 && short.error["reason"] as? String == "insufficient_stock", "\(short.text)")
            let named = (short.error["details"] as? [String: Any])?["products"] as? [[String: Any]] ?? []
            #expect(named.map { Set($0.keys) } == [["product_id"]], "\(short.text)")
        }
    }

    @Test("what a store earned is held before a payout may take it; a refund after a payout takes it below zero")
    func heldCreditsAndNegativeBalances() async throws {
        // Held three days unless the operator says otherwise (the suites here say 0).
        let defaults = try PaymentsSettings.read(from: .fixed([:]))
        #expect(defaults.ledgerHold == .seconds(72 * 3600))
        try await InProcessSuite.with(settings: ["ledger.holdHours": "72"]) { suite in
            let market = try await checkout.market(suite)
            _ = try await paidCardOrder(suite, market)
            let figures = try await storeFigures(suite, market) { $0.earned > 0 }
            #expect(figures.available == 0 && figures.balance == figures.earned, "\(figures)")
            let held = try await payout(suite, market, 1)
            #expect(held.status == 422 && held.error["reason"] as? String == "insufficient_balance", "\(held.text)")
        }
        // Without a hold: paid out in full, then a refund takes the store below zero and stops payouts.
        try await InProcessSuite.with { suite in
            let market = try await checkout.market(suite)
            let (_, payment) = try await paidCardOrder(suite, market)
            let earned = try await storeFigures(suite, market) { $0.earned > 0 }
            let paidOut = try await payout(suite, market, earned.available)
            #expect(paidOut.status == 201, "\(paidOut.text)")
            let refund = try await api.send(
                suite, "POST", "/v1/payments/\(payment)/refunds", token: market.owner, json: ["reason": "spilt"],
                headers: ["Idempotency-Key": UUID().uuidString])
            #expect(refund.status == 201, "\(refund.text)")
            let owing = try await storeFigures(suite, market) { $0.balance < 0 }
            #expect(owing.available == 0, "\(owing)")
            let more = try await payout(suite, market, 1)
            #expect(more.status == 422 && more.error["reason"] as? String == "insufficient_balance", "\(more.text)")
        }
    }

    @Test(
        "a payout's check of the balance waits for a debit being booked meanwhile, and sees it (PostgreSQL)",
        .enabled(if: TestDatabase.hasPostgres, TestDatabase.noPostgres))
    func payoutWaitsForDebits() async throws {
        try await InProcessSuite.with(on: .postgres) { suite in
            let market = try await checkout.market(suite)
            _ = try await paidCardOrder(suite, market)
            let figures = try await storeFigures(suite, market) { $0.available > 0 }
            let store = try #require(StoreID(market.store))
            let debit = LedgerEntry(
                kind: .refund, reference: "refund:\(UUID())", currency: .ils,
                postings: [
                    LedgerPosting(.store(store), -Int64(figures.available)),
                    LedgerPosting(.platformFunds, Int64(figures.available)),
                ],
                storeID: store, at: Date())
            let (api, available, path, admin) = (
                self.api, figures.available, "/v1/stores/\(market.store)/payouts", market.admin
            )
            let answered = Answered()
            // A debit booked and not yet committed while a payout of everything is asked for: the
            // payout either waits for it (PostgreSQL shows an advisory lock awaited) or, without the
            // lock, is answered meanwhile from the balance before it.
            let (waited, payout) = try await suite.paymentsDatabase.transaction { transaction in
                try await LedgerRepository().post(debit, in: transaction)
                let payout = Task { [suite] in
                    let reply = try await api.send(
                        suite, "POST", path, token: admin, json: ["amount": available, "currency": "ILS"],
                        headers: ["Idempotency-Key": UUID().uuidString])
                    answered.flag.withLock { $0 = true }
                    return reply
                }
                var waited = false
                _ = try await waitUntil {
                    waited =
                        try await suite.paymentsDatabase.read { sql in
                            try await sql.raw(
                                "SELECT COUNT(*) AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND wait_event = 'advisory'"
                            ).first()?.decode(column: "n", as: Int.self) ?? 0
                        } > 0
                    return waited || answered.flag.withLock { $0 }
                }
                return (waited, payout)
            }
            let reply = try await payout.value
            #expect(waited, "the payout was answered before the debit committed: \(reply.text)")
            #expect(reply.status == 422 && reply.error["reason"] as? String == "insufficient_balance", "\(reply.text)")
        }
    }

    @Test("e-mail addresses are one however they are typed; names, addresses and notes show what they hold")
    func addressesAndTexts() async throws {
        try await InProcessSuite.with { suite in
            let signed = try await api.send(
                suite, "POST", "/v1/auth/register",
                json: ["email": "ＳＴＲＡẞE@Example.com", "password": "password-123", "name": "Dana Levi"])
            #expect(signed.status == 201, "\(signed.text)")
            let again = try await api.send(
                suite, "POST", "/v1/auth/register",
                json: ["email": "strasse@example.com", "password": "password-123", "name": "Dana Levi"])
            #expect(again.status == 409, "the same address typed another way: \(again.text)")
            _ = try await api.login(suite, "Strasse@EXAMPLE.com", "password-123")
            let spoofed = try await api.send(
                suite, "POST", "/v1/auth/register",
                json: ["email": "eli@example.com", "password": "password-123", "name": "Eli\u{202E}gnp.exe"])
            #expect(spoofed.status == 400 && spoofed.error["details"] as? [String: String] != nil, "\(spoofed.text)")
            #expect((spoofed.error["details"] as? [String: Any])?.keys.sorted() == ["name"], "\(spoofed.text)")
            let token = try #require(signed.object["access_token"] as? String)
            let address = try await api.send(
                suite, "POST", "/v1/me/addresses", token: token,
                json: ["street": "Dizen\u{200B}goff", "building_no": "50", "delivery_notes": "ring\u{2066} twice"])
            #expect(address.status == 400, "\(address.text)")
            #expect(
                (address.error["details"] as? [String: Any])?.keys.sorted() == ["delivery_notes", "street"],
                "\(address.text)")
        }
    }

    @Test("an address a pending application waits on cannot sign up, nor can the bootstrap admin's")
    func pendingApplicationsKeepTheirAddress() async throws {
        try await InProcessSuite.with { suite in
            let applied = try await api.send(suite, "POST", "/v1/applications", json: ApplicationsTests.restaurant)
            try #require(applied.status == 201, "\(applied.text)")
            try await suite.verifyMailedAddress(
                try #require(ApplicationsTests.restaurant["email"] as? String), api: api)
            let email = try #require(ApplicationsTests.restaurant["email"] as? String)
            for address in [email, suite.adminEmail] {
                let taken = try await api.send(
                    suite, "POST", "/v1/auth/register",
                    json: ["email": address.uppercased(), "password": "password-123", "name": "Someone Else"])
                #expect(taken.status == 409, "\(taken.text)")
                #expect((taken.error["details"] as? [String: Any])?.keys.sorted() == ["email"], "\(taken.text)")
            }
            // The approval still opens the store and makes its owner.
            let approved = try await api.send(
                suite, "POST", "/v1/applications/\(applied.object["id"] as? String ?? "")/approve",
                token: try await api.admin(suite))
            #expect(approved.status == 200, "\(approved.text)")
        }
    }
}

/// Whether a request running beside a test has been answered.
final class Answered: Sendable {
    let flag = Mutex(false)
}

/// A balance's figures in ILS (`LedgerFlowTests.Figures`).
typealias Figures = LedgerFlowTests.Figures
