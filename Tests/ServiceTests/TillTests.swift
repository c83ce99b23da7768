import Foundation
import Storage
import TestSupport
import Testing

/// The till's customers and cards through the gateway: records looked up and linked, a card
/// tapped to pay, the milestones the server keeps, and each store's kept from every other.
@Suite("The till's customers and cards")
struct TillTests {
    let api: API
    let payments: PaymentFlowTests

    init() throws {
        api = try API()
        payments = try PaymentFlowTests()
    }

    @Test(
        "tap a card, find its customer, pay: the payment is theirs, the milestones appear; a blocked card cannot pay",
        arguments: TestDatabase.kinds)
    func tapAndPay(kind: Database.Kind) async throws {
        try await InProcessSuite.with(on: kind) { suite in
            let (store, product, staff) = try await PaymentFlowTests.setUp(api, suite, quantity: 10)
            // A record made offline: the client's id, and its key for the retry.
            let id = UUID().uuidString.lowercased()
            let fields: [String: Any] = [
                "id": id, "name": "Dana Levi", "email": "Dana@Example.com", "phone": "+972 50-123-4567",
                "wallet_address": "rN7n7otQDd6FczFgLdSqtcsAUxDkw6fzRH",
            ]
            let created = try await api.send(
                suite, "POST", "/v1/stores/\(store)/customers", token: staff, json: fields,
                headers: ["Idempotency-Key": "dana-1"])
            #expect(created.status == 201 && created.object["id"] as? String == id, "\(created.text)")
            let retried = try await api.send(
                suite, "POST", "/v1/stores/\(store)/customers", token: staff, json: fields,
                headers: ["Idempotency-Key": "dana-1"])
            #expect(retried.status == 201 && retried.object["version"] as? Int == 1)
            let taken = try await api.send(suite, "POST", "/v1/stores/\(store)/customers", token: staff, json: fields)
            #expect(taken.status == 409 && Self.fields(taken) == ["id"])
            let bad = try await api.send(
                suite, "POST", "/v1/stores/\(store)/customers", token: staff,
                json: ["email": "dana@", "logo_url": "ftp://x"])
            #expect(bad.status == 400 && Self.fields(bad) == ["email", "logo_url"], "\(bad.text)")
            // A name is optional; a record named by nothing at all is not.
            let nameless = try await api.send(
                suite, "POST", "/v1/stores/\(store)/customers", token: staff, json: ["name": " ", "notes": "regular"])
            #expect(nameless.status == 400 && Self.fields(nameless) == ["name"], "\(nameless.text)")
            let walletOnly = try await api.send(
                suite, "POST", "/v1/stores/\(store)/customers", token: staff,
                json: ["wallet_address": "rHb9CJAWyB4rj91VRWn96DkukG4bwdtyTh"])
            #expect(walletOnly.status == 201 && walletOnly.object["name"] == nil, "\(walletOnly.text)")

            // Linked to the customer's own account, which then reads the payments made out to it.
            let signUp = try await api.send(
                suite, "POST", "/v1/auth/register",
                json: ["email": "dana@example.com", "password": "password-123", "name": "Dana Levi"])
            try #require(signUp.status == 201, "\(signUp.text)")
            let account = try await api.login(suite, "dana@example.com", "password-123")
            let accountID = (account["user"] as? [String: Any])?["id"] as? String ?? ""
            let staffID = try await Self.me(api, suite, staff)
            let notACustomer = try await api.send(
                suite, "PATCH", "/v1/customers/\(id)", token: staff, json: ["user_id": staffID])
            #expect(notACustomer.status == 400 && Self.fields(notACustomer) == ["user_id"], "\(notACustomer.text)")
            let linked = try await api.send(
                suite, "PATCH", "/v1/customers/\(id)", token: staff, json: ["user_id": accountID, "auto_sign": true])
            #expect(linked.status == 200 && linked.object["version"] as? Int == 2, "\(linked.text)")
            #expect((linked.object["milestones"] as? [String: Any])?["auto_sign_enabled_at"] is String)

            // The card, registered to the customer: their first card linked.
            let card = try await api.send(
                suite, "POST", "/v1/stores/\(store)/cards", token: staff,
                json: ["uid": "04:a2:24:b1:c2:d3:80", "customer_id": id], headers: ["Idempotency-Key": "card-1"])
            #expect(card.status == 201 && card.object["uid"] as? String == "04A224B1C2D380", "\(card.text)")
            #expect(card.object["uid_display"] as? String == "04:A2:24:B1:C2:D3:80")
            let cardID = card.object["id"] as? String ?? ""
            let again = try await api.send(
                suite, "POST", "/v1/stores/\(store)/cards", token: staff, json: ["uid": "04A224B1C2D380"])
            #expect(again.status == 409 && Self.fields(again) == ["uid"], "\(again.text)")
            let tap = try await api.send(
                suite, "GET", "/v1/stores/\(store)/cards/lookup?uid=04a224b1c2d380", token: staff)
            #expect(tap.status == 200 && (tap.object["customer"] as? [String: Any])?["id"] as? String == id)
            let milestones = try await Self.milestones(api, suite, staff, id)
            #expect(milestones["first_card_linked_at"] is String && milestones["first_payment_at"] == nil)

            // Searched by name, e-mail, wallet address or phone digits.
            for query in ["dana", "EXAMPLE.COM", "50-123", "972%2050", "rn7n7otqdd6fczf"] {
                let found = try await api.send(suite, "GET", "/v1/stores/\(store)/customers?q=\(query)", token: staff)
                #expect((found.object["data"] as? [[String: Any]])?.map { $0["id"] as? String } == [id], "\(query)")
            }
            let byWallet = try await api.send(
                suite, "GET", "/v1/stores/\(store)/customers?q=rHb9CJAWyB4rj91VRWn96DkukG4bwdtyTh", token: staff)
            #expect(
                (byWallet.object["data"] as? [[String: Any]])?.map { $0["id"] as? String }
                    == [walletOnly.object["id"] as? String])
            let none = try await api.send(suite, "GET", "/v1/stores/\(store)/customers?q=nobody", token: staff)
            #expect((none.object["data"] as? [Any])?.isEmpty == true)

            // Paid by the card: the payment names the card's customer and their account.
            let paid = try await payments.ringUp(
                suite, staff, product: product, units: 1, method: "nfc", extra: ["card_uid": "04A224B1C2D380"])
            #expect(paid.status == 201, "\(paid.text)")
            #expect(paid.object["customer_id"] as? String == id && paid.object["card_id"] as? String == cardID)
            #expect(paid.object["customer_user_id"] as? String == accountID)
            let paymentID = paid.object["id"] as? String ?? ""
            let report = try await payments.report(
                suite, payment: paymentID, type: "completed", amount: paid.object["amount"] as? Int)
            #expect(report.object["outcome"] as? String == "applied", "\(report.text)")
            #expect(try await Self.milestones(api, suite, staff, id)["first_payment_at"] is String)
            let theirs = try await api.send(
                suite, "GET", "/v1/payments/\(paymentID)", token: account["access_token"] as? String)
            #expect(theirs.status == 200)
            // The store's activity has each thing once, for its managers, in their language.
            let admin = try await api.admin(suite)
            _ = try await api.createUser(
                suite, admin: admin,
                ["email": "manager@k.com", "role": "manager", "store_id": store, "locale": "he"])
            let manager = try await api.token(suite, "manager@k.com")
            var feed: [[String: Any]] = []
            #expect(
                try await waitUntil {
                    feed =
                        try await api.send(suite, "GET", "/v1/stores/\(store)/activity", token: manager)
                        .object["data"] as? [[String: Any]] ?? []
                    // In Hebrew once the manager's account has reached the notifications service.
                    let paid = feed.first { $0["type"] as? String == "payment" }
                    return Set(feed.compactMap { $0["type"] as? String }) == [
                        "product_created", "clock_in", "card_linked", "payment",
                    ] && paid?["subtitle"] as? String == "שולם ללא מגע"
                }, "\(feed)")
            #expect(feed.count == 4 && feed.map { $0["seq"] as? Int } == [1, 2, 3, 4])
            let payment = feed.first { $0["type"] as? String == "payment" }
            #expect((payment?["data"] as? [String: Any])?["payment_id"] as? String == paymentID)
            #expect((payment?["data"] as? [String: Any])?["customer_id"] as? String == id)
            #expect(payment?["amount"] as? Int == paid.object["amount"] as? Int)
            let linkedEntry = feed.first { $0["type"] as? String == "card_linked" }
            #expect(linkedEntry?["subtitle"] as? String == "Dana Levi · 04:A2:24:B1:C2:D3:80")
            #expect(try await api.send(suite, "GET", "/v1/stores/\(store)/activity", token: staff).status == 404)
            let after = try await api.send(suite, "GET", "/v1/stores/\(store)/activity?after=3", token: manager)
            #expect((after.object["data"] as? [[String: Any]])?.count == 1 && after.object["next_cursor"] as? Int == 4)

            // Another customer's id beside the card, a customer of no store, an unknown card.
            let wrong = try await payments.ringUp(
                suite, staff, product: product, units: 1, method: "nfc",
                extra: ["card_uid": "04A224B1C2D380", "customer_id": UUID().uuidString])
            #expect(wrong.status == 422 && Self.fields(wrong) == ["customer_id"], "\(wrong.text)")
            let stranger = try await payments.ringUp(
                suite, staff, product: product, units: 1, extra: ["customer_id": UUID().uuidString])
            #expect(stranger.status == 422 && Self.fields(stranger) == ["customer_id"], "\(stranger.text)")
            let unknown = try await payments.ringUp(
                suite, staff, product: product, units: 1, method: "nfc", extra: ["card_uid": "0102030405"])
            #expect(unknown.status == 404, "\(unknown.text)")

            // Blocked, the card is still found at the till, and refused to pay.
            let blocked = try await api.send(
                suite, "PATCH", "/v1/cards/\(cardID)", token: staff, json: ["status": "blocked"],
                headers: ["If-Match": "\"1\""])
            #expect(blocked.status == 200 && blocked.object["status"] as? String == "blocked", "\(blocked.text)")
            let refused = try await payments.ringUp(
                suite, staff, product: product, units: 1, method: "nfc", extra: ["card_uid": "04A224B1C2D380"])
            #expect(refused.status == 422 && refused.error["reason"] as? String == "card_blocked", "\(refused.text)")
            #expect(try await payments.stock(suite, product, staff) == (9, 0))
            let listed = try await api.send(suite, "GET", "/v1/stores/\(store)/cards?status=blocked", token: staff)
            #expect((listed.object["data"] as? [[String: Any]])?.map { $0["id"] as? String } == [cardID])

            // Deleted by a manager, not by staff: the card is unlinked, the payment keeps its id.
            let refusedDelete = try await api.send(suite, "DELETE", "/v1/customers/\(id)", token: staff)
            #expect(refusedDelete.status == 403)
            #expect(try await api.send(suite, "DELETE", "/v1/customers/\(id)", token: manager).status == 204)
            #expect(try await api.send(suite, "GET", "/v1/customers/\(id)", token: manager).status == 404)
            let unlinked = try await api.send(suite, "GET", "/v1/cards/\(cardID)", token: staff)
            #expect(
                unlinked.status == 200 && unlinked.object["customer_id"] == nil
                    && unlinked.object["version"] as? Int == 3)
            let kept = try await api.send(suite, "GET", "/v1/payments/\(paymentID)", token: staff)
            #expect(kept.object["customer_id"] as? String == id)
        }
    }

    @Test("another store's users get 404 for every customer, card, feed, ledger, summary and colleague of the store")
    func otherStores() async throws {
        try await InProcessSuite.with { suite in
            let (store, _, staff) = try await PaymentFlowTests.setUp(api, suite, quantity: 1)
            let customer = try await api.send(
                suite, "POST", "/v1/stores/\(store)/customers", token: staff, json: ["name": "Dana"])
            let card = try await api.send(
                suite, "POST", "/v1/stores/\(store)/cards", token: staff,
                json: ["uid": "04A224B1", "customer_id": customer.object["id"] as? String ?? ""])
            let (customerID, cardID) = (customer.object["id"] as? String ?? "", card.object["id"] as? String ?? "")
            let admin = try await api.admin(suite)
            let other = try await api.createStore(suite, admin: admin, ["name": "Other", "address": "2 Herzl St"])
            _ = try await api.createUser(
                suite, admin: admin, ["email": "owner@o.com", "role": "owner", "store_id": other])
            let owner = try await api.token(suite, "owner@o.com")
            for (method, path, body) in [
                ("GET", "/v1/customers/\(customerID)", nil), ("PATCH", "/v1/customers/\(customerID)", ["name": "X"]),
                ("DELETE", "/v1/customers/\(customerID)", nil), ("GET", "/v1/cards/\(cardID)", nil),
                ("PATCH", "/v1/cards/\(cardID)", ["status": "blocked"]),
                ("GET", "/v1/stores/\(store)/customers", nil), ("POST", "/v1/stores/\(store)/customers", ["name": "X"]),
                ("GET", "/v1/stores/\(store)/cards", nil), ("POST", "/v1/stores/\(store)/cards", ["uid": "04A224B2"]),
                ("GET", "/v1/stores/\(store)/cards/lookup?uid=04A224B1", nil),
                ("GET", "/v1/stores/\(store)/activity", nil),
                ("GET", "/v1/stores/\(store)/payments/changes?since=0", nil),
                ("GET", "/v1/stores/\(store)/shifts/summary?from=2026-11-01&to=2026-11-30", nil),
                ("GET", "/v1/stores/\(store)/stock-ledger", nil), ("GET", "/v1/stores/\(store)/staff", nil),
            ] as [(String, String, [String: Any]?)] {
                let reply = try await api.send(suite, method, path, token: owner, json: body)
                #expect(reply.status == 404, "\(method) \(path): \(reply.status) \(reply.text)")
            }
            let untouched = try await api.send(suite, "GET", "/v1/cards/\(cardID)", token: staff)
            #expect(
                untouched.object["status"] as? String == "active"
                    && untouched.object["customer_id"] as? String == customerID)
        }
    }

    @Test(
        "a till that was offline catches up on the store's payments; a summary counts each one's shifts, hours and sales"
    )
    func catchingUp() async throws {
        try await InProcessSuite.with { suite in
            let (store, product, staff) = try await PaymentFlowTests.setUp(api, suite, quantity: 10)
            let admin = try await api.admin(suite)
            _ = try await api.createUser(
                suite, admin: admin, ["email": "owner@k.com", "role": "owner", "store_id": store])
            let owner = try await api.token(suite, "owner@k.com")
            let sold = try await payments.sell(suite, staff, product: product, units: 2)
            let pending = try await payments.ringUp(suite, owner, product: product, units: 1)
            #expect(pending.status == 201, "\(pending.text)")

            // From 0: both, oldest change first; the staff member sees only theirs.
            let all = try await api.send(suite, "GET", "/v1/stores/\(store)/payments/changes?since=0", token: owner)
            let ids = (all.object["data"] as? [[String: Any]])?.map { $0["id"] as? String }
            #expect(ids == [sold["id"] as? String, pending.object["id"] as? String], "\(all.text)")
            let cursor = all.object["next_cursor"] as? String ?? ""
            let theirs = try await api.send(suite, "GET", "/v1/stores/\(store)/payments/changes?since=0", token: staff)
            #expect((theirs.object["data"] as? [[String: Any]])?.map { $0["id"] as? String } == [sold["id"] as? String])
            // After the cursor: only what was written since, as it is now.
            let nothing = try await api.send(
                suite, "GET", "/v1/stores/\(store)/payments/changes?since=\(cursor)", token: owner)
            #expect(
                (nothing.object["data"] as? [Any])?.isEmpty == true
                    && nothing.object["next_cursor"] as? String == cursor)
            let cancelled = try await api.send(
                suite, "POST", "/v1/payments/\(pending.object["id"] as? String ?? "")/cancel", token: owner)
            #expect(cancelled.status == 200)
            let moved = try await api.send(
                suite, "GET", "/v1/stores/\(store)/payments/changes?since=\(cursor)", token: owner)
            let changed = moved.object["data"] as? [[String: Any]]
            #expect(changed?.count == 1 && changed?.first?["status"] as? String == "cancelled", "\(moved.text)")
            let bad = try await api.send(suite, "GET", "/v1/stores/\(store)/payments/changes?since=x", token: owner)
            #expect(bad.status == 400 && Self.fields(bad) == ["since"])

            // The staff member's shift, still open, and their sale.
            let today = String(ISO8601DateFormatter().string(from: Date()).prefix(10))
            let yesterday = String(ISO8601DateFormatter().string(from: Date().addingTimeInterval(-86_400)).prefix(10))
            let tomorrow = String(ISO8601DateFormatter().string(from: Date().addingTimeInterval(86_400)).prefix(10))
            let path = "/v1/stores/\(store)/shifts/summary?from=\(yesterday)&to=\(tomorrow)"
            #expect(
                try await waitUntil {
                    let summary = try await api.send(suite, "GET", path, token: owner)
                    let member = (summary.object["staff"] as? [[String: Any]])?.first
                    return member?["shifts_count"] as? Int == 1 && member?["sales_count"] as? Int == 1
                        && member?["revenue"] as? Int == sold["amount"] as? Int && member?["hours_worked"] is Double
                })
            #expect(try await api.send(suite, "GET", path, token: staff).status == 404)
            let reversed = try await api.send(
                suite, "GET", "/v1/stores/\(store)/shifts/summary?from=\(today)&to=\(yesterday)", token: owner)
            #expect(reversed.status == 400 && Self.fields(reversed) == ["to"])
        }
    }

    @Test("the clock-in screen: staff list their colleagues with photos and clock state, nothing of how to reach them")
    func colleagues() async throws {
        try await InProcessSuite.with { suite in
            let (store, _, staff) = try await PaymentFlowTests.setUp(api, suite, quantity: 1)
            let admin = try await api.admin(suite)
            let barista = try await api.createUser(
                suite, admin: admin,
                [
                    "email": "barista@k.com", "role": "staff", "store_id": store, "staff_role": "barista",
                    "photo_url": "https://example.com/b.png",
                ])
            #expect(barista["photo_url"] as? String == "https://example.com/b.png")
            let badPhoto = try await api.send(
                suite, "PATCH", "/v1/users/\(barista["id"] as? String ?? "")", token: admin,
                json: ["photo_url": "ftp://example.com/b.png"])
            #expect(badPhoto.status == 400 && Self.fields(badPhoto) == ["photo_url"])
            let listed = try await api.send(suite, "GET", "/v1/stores/\(store)/staff", token: staff)
            let people = listed.object["data"] as? [[String: Any]] ?? []
            #expect(listed.status == 200 && people.count == 2, "\(listed.text)")
            let shown = people.first { $0["id"] as? String == barista["id"] as? String }
            #expect(
                shown?["photo_url"] as? String == "https://example.com/b.png"
                    && shown?["is_clocked_in"] as? Bool == false)
            #expect(people.first { $0["id"] as? String != barista["id"] as? String }?["is_clocked_in"] as? Bool == true)
            #expect(people.allSatisfy { $0["email"] == nil && $0["phone"] == nil })
            // Another store's users, couriers and customers see none of them.
            let other = try await api.createStore(suite, admin: admin, ["name": "Other", "address": "2 Herzl St"])
            _ = try await api.createUser(suite, admin: admin, ["email": "s@o.com", "role": "staff", "store_id": other])
            let stranger = try await api.token(suite, "s@o.com")
            #expect(try await api.send(suite, "GET", "/v1/stores/\(store)/staff", token: stranger).status == 404)
        }
    }

    @Test("the store's stock ledger: every product's movements, newest first, filtered, each with the product's name")
    func storeLedger() async throws {
        try await InProcessSuite.with { suite in
            let (store, cola, staff) = try await PaymentFlowTests.setUp(api, suite, quantity: 10)
            let admin = try await api.admin(suite)
            let tea = try await api.send(
                suite, "POST", "/v1/stores/\(store)/products", token: admin,
                json: ["name": "Tea", "price": 500, "track_stock": true, "quantity": 5])
            let teaID = tea.object["id"] as? String ?? ""
            _ = try await payments.sell(suite, staff, product: cola, units: 2)
            let path = "/v1/stores/\(store)/stock-ledger"
            #expect(
                try await waitUntil {
                    let ledger = try await api.send(suite, "GET", path, token: staff)
                    let entries = ledger.object["data"] as? [[String: Any]] ?? []
                    return entries.map { "\($0["reason"] ?? "")/\($0["product_name"] ?? "")" }
                        == ["sale/Cola", "initial/Tea", "initial/Cola"]
                })
            let sales = try await api.send(suite, "GET", path + "?reason=sale,return", token: staff)
            #expect((sales.object["data"] as? [[String: Any]])?.map { $0["adjustment"] as? Int } == [-2])
            let teas = try await api.send(suite, "GET", path + "?product_id=\(teaID)", token: staff)
            #expect((teas.object["data"] as? [[String: Any]])?.map { $0["product_id"] as? String } == [teaID])
            let page = try await api.send(suite, "GET", path + "?limit=2", token: staff)
            let next = try await api.send(
                suite, "GET", path + "?limit=2&cursor=\(page.object["next_cursor"] as? String ?? "")", token: staff)
            #expect((next.object["data"] as? [[String: Any]])?.map { $0["product_name"] as? String } == ["Cola"])
            let backwards = try await api.send(
                suite, "GET", path + "?from=2026-11-27T10:00:00Z&to=2026-11-27T09:00:00Z", token: staff)
            #expect(backwards.status == 400 && Self.fields(backwards) == ["to"])
            let other = try await api.createStore(suite, admin: admin, ["name": "Other", "address": "2 Herzl St"])
            _ = try await api.createUser(suite, admin: admin, ["email": "s@o.com", "role": "staff", "store_id": other])
            let stranger = try await api.token(suite, "s@o.com")
            #expect(try await api.send(suite, "GET", path, token: stranger).status == 404)
        }
    }

    static func fields(_ reply: Reply) -> Set<String> {
        Set((reply.error["details"] as? [String: Any] ?? [:]).keys)
    }

    static func me(_ api: API, _ suite: any Suite, _ token: String) async throws -> String {
        try await api.send(suite, "GET", "/v1/me", token: token).object["id"] as? String ?? ""
    }

    static func milestones(_ api: API, _ suite: any Suite, _ token: String, _ id: String) async throws
        -> [String: Any]
    {
        try await api.send(suite, "GET", "/v1/customers/\(id)", token: token).object["milestones"] as? [String: Any]
            ?? [:]
    }
}
