import Foundation
import Storage
import TestSupport
import Testing

/// The marketplace's money end to end: a restaurant applies and is approved, sells to a
/// customer paying by card and to one paying cash at the door, a courier delivers both, a refund
/// and payouts follow, and every balance is what the ledger's rules say.
@Suite("The ledger, end to end")
struct LedgerFlowTests {
    let api: API
    let payments: PaymentFlowTests
    let checkout: CheckoutTests

    init() throws {
        api = try API()
        payments = try PaymentFlowTests()
        checkout = try CheckoutTests()
    }

    /// A balance's figures in ILS.
    struct Figures: Equatable {
        var earned = 0
        var cashHeld = 0
        var balance = 0
        var available = 0
    }

    func balance(_ suite: any Suite, _ path: String, _ token: String) async throws -> (Figures, [[String: Any]]) {
        let reply = try await api.send(suite, "GET", path, token: token)
        try #require(reply.status == 200, "\(reply.text)")
        let ils = (reply.object["balances"] as? [[String: Any]])?.first { $0["currency"] as? String == "ILS" } ?? [:]
        let figures = Figures(
            earned: ils["earned"] as? Int ?? 0, cashHeld: ils["cash_held"] as? Int ?? 0,
            balance: ils["balance"] as? Int ?? 0, available: ils["available"] as? Int ?? 0)
        return (figures, reply.object["data"] as? [[String: Any]] ?? [])
    }

    @Test(
        "apply, sell by card and cash on delivery, deliver, refund, pay out: every balance as the rules say",
        arguments: TestDatabase.kinds)
    func marketplace(kind: Database.Kind) async throws {
        try await InProcessSuite.with(on: kind) { suite in
            // A restaurant applies and is approved; the owner signs in with the password chosen.
            let applied = try await api.send(suite, "POST", "/v1/applications", json: ApplicationsTests.restaurant)
            try #require(applied.status == 201, "\(applied.text)")
            try await suite.verifyMailedAddress(
                try #require(ApplicationsTests.restaurant["email"] as? String), api: api)
            let admin = try await api.admin(suite)
            let approved = try await api.send(
                suite, "POST", "/v1/applications/\(applied.object["id"] as? String ?? "")/approve", token: admin)
            let store = try #require(approved.object["store_id"] as? String, "\(approved.text)")
            let owner = try #require(
                try await api.login(suite, "dana@falafel.test", "password-123")["access_token"] as? String)
            // Only admins set the platform's commission: 10% here.
            let refused = try await api.send(
                suite, "PATCH", "/v1/stores/\(store)", token: owner, json: ["commission_bp": 1000])
            #expect(refused.status == 403, "\(refused.text)")
            let allWeek = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"].map {
                ["day": $0, "open": "00:00", "close": "24:00"]
            }
            let set = try await api.send(
                suite, "PATCH", "/v1/stores/\(store)", token: admin,
                json: ["commission_bp": 1000, "opening_hours": allWeek])
            #expect(set.status == 200 && set.object["commission_bp"] as? Int == 1000, "\(set.text)")
            #expect(
                try await api.send(suite, "GET", "/v1/stores/\(store)", token: owner).object["commission_bp"] as? Int
                    == 1000)
            // The owner builds the menu.
            let falafel = try await api.send(
                suite, "POST", "/v1/stores/\(store)/products", token: owner, json: ["name": "Falafel", "price": 2500])
            let product = try #require(falafel.object["id"] as? String, "\(falafel.text)")
            // A courier on duty, a customer, an accountant.
            _ = try await api.createUser(suite, admin: admin, ["email": "courier@x.com", "role": "courier"])
            _ = try await api.createUser(suite, admin: admin, ["email": "books@orderly.test", "role": "accountant"])
            let courier = try await api.token(suite, "courier@x.com")
            let accountant = try await api.token(suite, "books@orderly.test")
            let courierID = try await api.send(suite, "GET", "/v1/me", token: courier).object["id"] as? String ?? ""
            #expect(
                try await api.send(
                    suite, "PUT", "/v1/couriers/me/availability", token: courier, json: ["on_duty": true]
                )
                .status == 200)
            let signed = try await api.send(
                suite, "POST", "/v1/auth/register",
                json: [
                    "email": "eli@example.com", "password": "password-123", "name": "Eli Ben", "phone": "050-1112223",
                ])
            let customer = try #require(signed.object["access_token"] as? String, "\(signed.text)")
            #expect(
                try await api.send(suite, "GET", "/v1/stores/\(store)", token: customer).object["commission_bp"] == nil)

            func order(_ method: String, tip: Int) async throws -> [String: Any] {
                let created = try await api.send(
                    suite, "POST", "/v1/orders", token: customer,
                    json: [
                        "store_id": store, "payment_method": method, "tip": tip,
                        "address": ["street": "Allenby", "building_no": "3"],
                        "items": [["product_id": product, "quantity": 2]],
                    ], headers: ["Idempotency-Key": UUID().uuidString])
                try #require(created.status == 201, "\(created.text)")
                return created.object
            }
            func deliver(_ id: String, cash: Int? = nil) async throws {
                for action in ["accept", "start_preparing", "mark_ready"] {
                    let reply = try await checkout.act(suite, owner, id, action)
                    #expect(reply.status == 200 || action == "accept" && reply.status == 422, "\(reply.text)")
                }
                #expect(try await checkout.act(suite, courier, id, "claim").status == 200)
                #expect(try await checkout.act(suite, courier, id, "pick_up").status == 200)
                let delivered = try await checkout.act(
                    suite, courier, id, "deliver", cash.map { ["cash_collected": $0] } ?? [:])
                #expect(delivered.status == 200, "\(delivered.text)")
            }

            // By card, with a tip of 5.00: paid, then delivered.
            let card = try await order("card", tip: 500)
            let cardID = try #require(card["id"] as? String)
            let pay = try await api.send(
                suite, "POST", "/v1/payments", token: customer, json: ["order_id": cardID, "method": "card"],
                headers: ["Idempotency-Key": UUID().uuidString])
            let payment = try #require(pay.object["id"] as? String, "\(pay.text)")
            let paid = pay.object["amount"] as? Int ?? 0
            #expect(
                try await payments.report(suite, payment: payment, type: "completed", amount: paid)
                    .object["outcome"] as? String == "applied")
            #expect(
                try await waitUntil {
                    try await checkout.order(suite, owner, cardID)["payment_status"] as? String == "paid"
                })
            try await deliver(cardID)
            // Cash at the door, with a tip of 3.00: the courier collects it with 2.00 over.
            let cash = try await order("cash_on_delivery", tip: 300)
            let cashID = try #require(cash["id"] as? String)
            let owed = (cash["total"] as? Int ?? 0) + 300
            try await deliver(cashID, cash: owed + 200)

            // The rules: the store earns each payment less 10% of it without the tip, and gives
            // each delivery's fee and tip to the courier; the courier holds the cash collected.
            let (cardFee, cashFee) = (card["delivery_fee"] as? Int ?? 0, cash["delivery_fee"] as? Int ?? 0)
            let commission = (paid - 500) * 1000 / 10_000 + (owed - 300) * 1000 / 10_000
            let storeEarned = paid + owed - commission - (cardFee + 500) - (cashFee + 300)
            let courierEarned = cardFee + 500 + cashFee + 300
            var storeFigures = Figures()
            #expect(
                try await waitUntil {
                    storeFigures = try await balance(suite, "/v1/stores/\(store)/balance", owner).0
                    return storeFigures.earned == storeEarned
                }, "\(storeFigures) against \(storeEarned)")
            #expect(storeFigures == Figures(earned: storeEarned, balance: storeEarned, available: storeEarned))
            let expectedCourier = Figures(
                earned: courierEarned, cashHeld: owed, balance: courierEarned - owed,
                available: max(0, courierEarned - owed))
            var courierFigures = Figures()
            #expect(
                try await waitUntil {
                    courierFigures = try await balance(suite, "/v1/couriers/me/balance", courier).0
                    return courierFigures == expectedCourier
                }, "\(courierFigures) against \(expectedCourier)")

            // A refund of 10.00 of the card payment gives back its share of the commission.
            let refund = try await api.send(
                suite, "POST", "/v1/payments/\(payment)/refunds", token: owner,
                json: ["amount": 1000, "reason": "Cold"], headers: ["Idempotency-Key": "cold"])
            #expect(refund.status == 201, "\(refund.text)")
            let givenBack = ((paid - 500) * 1000 / 10_000) * 1000 / paid
            let afterRefund = storeEarned - (1000 - givenBack)
            #expect(
                try await waitUntil {
                    try await balance(suite, "/v1/stores/\(store)/balance", owner).0.earned == afterRefund
                })

            // Payouts: the accountant's, within what is available; the owner's is refused.
            let byOwner = try await api.send(
                suite, "POST", "/v1/stores/\(store)/payouts", token: owner, json: ["amount": 100, "currency": "ILS"],
                headers: ["Idempotency-Key": "owner"])
            #expect(byOwner.status == 403, "\(byOwner.text)")
            let tooMuch = try await api.send(
                suite, "POST", "/v1/stores/\(store)/payouts", token: accountant,
                json: ["amount": afterRefund + 1, "currency": "ILS"], headers: ["Idempotency-Key": "much"])
            #expect(
                tooMuch.status == 422 && tooMuch.error["reason"] as? String == "insufficient_balance", "\(tooMuch.text)"
            )
            let payout = try await api.send(
                suite, "POST", "/v1/stores/\(store)/payouts", token: accountant,
                json: ["amount": afterRefund, "currency": "ILS", "reference": "TRF-1"],
                headers: ["Idempotency-Key": "week-1"])
            #expect(payout.status == 201 && payout.object["store_id"] as? String == store, "\(payout.text)")
            let again = try await api.send(
                suite, "POST", "/v1/stores/\(store)/payouts", token: accountant,
                json: ["amount": afterRefund, "currency": "ILS", "reference": "TRF-1"],
                headers: ["Idempotency-Key": "week-1"])
            #expect(again.status == 201 && again.object["id"] as? String == payout.object["id"] as? String)
            let (paidOut, entries) = try await balance(suite, "/v1/stores/\(store)/balance", accountant)
            #expect(paidOut == Figures(), "\(paidOut)")
            #expect(entries.first?["kind"] as? String == "payout")
            #expect(
                entries.compactMap { $0["kind"] as? String }.sorted()
                    == ["delivery", "delivery", "payment", "payment", "payout", "refund"])
            for entry in entries {
                let postings = entry["postings"] as? [[String: Any]] ?? []
                #expect(postings.reduce(0) { $0 + ($1["amount"] as? Int ?? 0) } == 0, "\(entry)")
            }
            // The courier hands in the cash, then is paid what they earned.
            let handedIn = try await api.send(
                suite, "POST", "/v1/couriers/\(courierID)/payouts", token: accountant,
                json: ["amount": -owed, "currency": "ILS"], headers: ["Idempotency-Key": "cash-in"])
            #expect(handedIn.status == 201, "\(handedIn.text)")
            let courierPayout = try await api.send(
                suite, "POST", "/v1/couriers/\(courierID)/payouts", token: accountant,
                json: ["amount": courierEarned, "currency": "ILS"], headers: ["Idempotency-Key": "courier-1"])
            #expect(courierPayout.status == 201, "\(courierPayout.text)")
            #expect(try await balance(suite, "/v1/couriers/\(courierID)/balance", accountant).0 == Figures())
            // Nobody else reads a balance.
            #expect(try await api.send(suite, "GET", "/v1/stores/\(store)/balance", token: courier).status == 404)
            #expect(try await api.send(suite, "GET", "/v1/couriers/\(courierID)/balance", token: owner).status == 404)
            #expect(try await api.send(suite, "GET", "/v1/couriers/me/balance", token: owner).status == 403)
            let notCourier = try await api.send(
                suite, "POST",
                "/v1/couriers/\(try await api.send(suite, "GET", "/v1/me", token: owner).object["id"] as? String ?? "")/payouts",
                token: accountant, json: ["amount": 1, "currency": "ILS"], headers: ["Idempotency-Key": "x"])
            #expect(notCourier.status == 404)
        }
    }
}
