import Foundation
import Storage
import TestSupport
import Testing

/// A person leaving: everything held about them exported, then their account closed and erased
/// in every service, while the stores keep their orders.
@Suite("Closing an account")
struct AccountClosureTests {
    let api: API
    let checkout: CheckoutTests

    init() throws {
        api = try API()
        checkout = try CheckoutTests()
    }

    @Test(
        "a customer verifies, orders, exports and leaves; the store keeps the order with the name replaced; a courier holding cash and an owner are refused",
        arguments: TestDatabase.kinds)
    func leaving(kind: Database.Kind) async throws {
        try await InProcessSuite.with(on: kind) { suite in
            let market = try await checkout.market(suite, autoAccept: true)
            try await suite.verifyMailedAddress("dana@example.com", api: api)
            let created = try await checkout.checkout(
                suite, market,
                [
                    "address_id": market.address, "payment_method": "cash_on_delivery",
                    "notes": "Ring twice, ask for Dana",
                    "items": [["product_id": market.drink, "quantity": 2]],
                ])
            try #require(created.status == 201, "\(created.text)")
            let id = try #require(created.object["id"] as? String)
            let total = try #require(created.object["total"] as? Int)
            func close(_ token: String, _ password: String = "password-123") async throws -> Reply {
                try await api.send(suite, "DELETE", "/v1/me", token: token, json: ["password": password])
            }

            // Not while the order is on its way.
            let early = try await close(market.customer)
            #expect(early.status == 422 && early.error["reason"] as? String == "orders_in_progress", "\(early.text)")
            for action in ["start_preparing", "mark_ready"] {
                #expect(try await checkout.act(suite, market.owner, id, action).status == 200)
            }
            for action in ["claim", "pick_up"] {
                #expect(try await checkout.act(suite, market.courier, id, action).status == 200)
            }
            let carrying = try await close(market.courier)
            #expect(carrying.status == 422 && carrying.error["reason"] as? String == "orders_in_progress")
            let delivered = try await checkout.act(suite, market.courier, id, "deliver", ["cash_collected": total])
            #expect(delivered.status == 200, "\(delivered.text)")

            // A courier holding the cash they collected cannot leave until it is settled; an
            // owner is told who closes theirs; a wrong password is named.
            #expect(
                try await waitUntil {
                    try await api.send(suite, "GET", "/v1/couriers/me/balance", token: market.courier).text
                        .contains("\"cash_held\":\(total)")
                })
            let owes = try await close(market.courier)
            #expect(owes.status == 422 && owes.error["reason"] as? String == "cash_outstanding", "\(owes.text)")
            #expect((owes.error["details"] as? [String: Any])?["currency"] as? String == "ILS")
            let owner = try await close(market.owner)
            #expect(owner.status == 403, "\(owner.text)")
            #expect((owner.error["details"] as? [String: Any])?["closed_by"] as? String == "the platform's admins")
            let wrong = try await close(market.customer, "not-my-password")
            #expect(wrong.status == 400 && (wrong.error["details"] as? [String: Any])?["password"] != nil)

            // The export holds the account, the saved address, the order, its payment and the
            // notifications of it.
            #expect(
                try await waitUntil {
                    try await api.send(suite, "GET", "/v1/orders/\(id)", token: market.customer)
                        .object["payment_status"] as? String == "paid"
                })
            let export = try await api.send(suite, "GET", "/v1/me/export", token: market.customer)
            #expect(export.status == 200, "\(export.text)")
            #expect(export.headers["content-disposition"]?.contains("orderly-export.json") == true)
            let user = export.object["user"] as? [String: Any]
            #expect(user?["email"] as? String == "dana@example.com" && user?["email_verified"] as? Bool == true)
            #expect((export.object["addresses"] as? [[String: Any]])?.count == 1)
            #expect((export.object["orders"] as? [[String: Any]])?.map { $0["id"] as? String } == [id])
            let paid = (export.object["payments"] as? [[String: Any]])?.map { $0["order_id"] as? String }
            #expect(paid == [id], "\(export.text)")
            #expect(!((export.object["notifications"] as? [[String: Any]]) ?? []).isEmpty)
            let courierExport = try await api.send(suite, "GET", "/v1/me/export", token: market.courier)
            #expect((courierExport.object["orders"] as? [[String: Any]])?.map { $0["id"] as? String } == [id])
            #expect(!((courierExport.object["ledger_entries"] as? [[String: Any]]) ?? []).isEmpty)

            // Leaving: signed out at once, the address free again, the store's order anonymised,
            // the notifications gone.
            let me = try await api.send(suite, "GET", "/v1/me", token: market.customer)
            let customerID = try #require(me.object["id"] as? String)
            #expect(try await close(market.customer).status == 204)
            #expect(
                try await waitUntil {
                    try await api.send(suite, "GET", "/v1/me", token: market.customer).status == 401
                })
            let signIn = try await api.send(
                suite, "POST", "/v1/auth/login", json: ["email": "dana@example.com", "password": "password-123"])
            #expect(signIn.status == 401)
            let admin = market.admin
            let kept = try await api.send(suite, "GET", "/v1/users/\(customerID)", token: admin).object
            #expect(kept["name"] as? String == "Deleted customer" && kept["active"] as? Bool == false)
            #expect(kept["phone"] == nil && (kept["email"] as? String)?.hasSuffix("@deleted.invalid") == true)
            #expect(
                try await waitUntil {
                    let order = try await checkout.order(suite, market.owner, id)
                    return order["customer_name"] as? String == "Deleted customer"
                })
            let order = try await checkout.order(suite, market.owner, id)
            #expect(order["phone"] == nil && order["street"] == nil && order["delivery_address"] == nil, "\(order)")
            #expect(order["customer_notes"] == nil && order["total"] as? Int == total)
            #expect(order["status"] as? String == "delivered" && order["payment_status"] as? String == "paid")
            let found = try await api.send(
                suite, "GET", "/v1/orders?store_id=\(market.store)&q=dana", token: market.owner)
            #expect((found.object["data"] as? [[String: Any]])?.isEmpty == true, "no longer found by the name")
            #expect(
                try await waitUntil {
                    let inbox = try await api.send(
                        suite, "GET", "/v1/users/\(customerID)/notifications", token: admin)
                    return inbox.status == 200 && (inbox.object["data"] as? [[String: Any]])?.isEmpty == true
                })
            let again = try await api.send(
                suite, "POST", "/v1/auth/register",
                json: ["email": "dana@example.com", "password": "password-456", "name": "Dana Levi"])
            #expect(again.status == 201, "\(again.text)")
        }
    }
}
