import Contracts
import Foundation
import Storage
import TestSupport
import Testing

@testable import Payments

/// The platform's staff through the gateway, each doing what their role is for and refused the
/// rest: a supervisor runs orders, couriers and applications; the support desk reads orders,
/// customers and their notifications and cancels; an accountant reads the money; the social-media
/// staff edit public profiles.
@Suite("The platform's staff roles")
struct PlatformRolesTests {
    let api: API
    let payments: PaymentFlowTests

    init() throws {
        api = try API()
        payments = try PaymentFlowTests()
    }

    @Test(
        "supervisor, support, accountant and social media each do their part, and only admins make them",
        arguments: TestDatabase.kinds)
    func roles(kind: Database.Kind) async throws {
        try await InProcessSuite.with(on: kind) { suite in
            let (store, product, staff) = try await PaymentFlowTests.setUp(api, suite, quantity: 10)
            let admin = try await api.admin(suite)

            // Only admins make the platform's staff.
            _ = try await api.createUser(
                suite, admin: admin, ["email": "owner@k.com", "role": "owner", "store_id": store])
            let owner = try await api.token(suite, "owner@k.com")
            let byOwner = try await api.send(
                suite, "POST", "/v1/users", token: owner,
                json: ["email": "sup@k.com", "name": "S", "role": "supervisor", "password": "password-123"])
            #expect(byOwner.status == 403, "\(byOwner.text)")
            var token: [String: String] = [:]
            for role in ["supervisor", "support", "accountant", "social_media"] {
                let made = try await api.createUser(
                    suite, admin: admin, ["email": "\(role)@orderly.test", "role": role])
                #expect(made["role"] as? String == role && made["store_id"] == nil)
                token[role] = try await api.token(suite, "\(role)@orderly.test")
            }
            let (supervisor, support, accountant, social) = (
                token["supervisor"]!, token["support"]!, token["accountant"]!, token["social_media"]!
            )
            _ = try await api.createUser(suite, admin: admin, ["email": "courier@x.com", "role": "courier"])

            // A customer with an account, linked to the store's record and paying by card.
            let signUp = try await api.send(
                suite, "POST", "/v1/auth/register",
                json: ["email": "dana@example.com", "password": "password-123", "name": "Dana Levi"])
            try #require(signUp.status == 201, "\(signUp.text)")
            let customerID = (signUp.object["user"] as? [String: Any])?["id"] as? String ?? ""
            let record = try await api.send(
                suite, "POST", "/v1/stores/\(store)/customers", token: staff,
                json: ["name": "Dana Levi", "user_id": customerID])
            try #require(record.status == 201, "\(record.text)")
            let recordID = record.object["id"] as? String ?? ""
            let paid = try await payments.ringUp(
                suite, staff, product: product, units: 1, method: "card", extra: ["customer_id": recordID])
            try #require(paid.status == 201, "\(paid.text)")
            let payment = paid.object["id"] as? String ?? ""
            let report = try await payments.report(suite, payment: payment, type: "completed", amount: 900)
            #expect(report.object["outcome"] as? String == "applied", "\(report.text)")

            // Two orders of the store.
            func order() async throws -> String {
                let reply = try await api.send(
                    suite, "POST", "/v1/orders", token: staff, json: API.delivery(boxes: 2),
                    headers: ["Idempotency-Key": UUID().uuidString])
                try #require(reply.status == 201, "\(reply.text)")
                return reply.object["id"] as? String ?? ""
            }
            let (first, second) = (try await order(), try await order())

            // The supervisor: every store's orders and their actions, couriers, applications.
            let listed = try await api.send(suite, "GET", "/v1/orders?store_id=\(store)", token: supervisor)
            #expect((listed.object["data"] as? [[String: Any]])?.count == 2, "\(listed.text)")
            let accepted = try await api.send(
                suite, "POST", "/v1/orders/\(first)/actions/accept", token: supervisor, json: [:])
            #expect(accepted.status == 200 && accepted.object["status"] as? String == "accepted", "\(accepted.text)")
            let couriers = try await api.send(suite, "GET", "/v1/users?role=courier", token: supervisor)
            let courier = (couriers.object["data"] as? [[String: Any]])?.first
            #expect(couriers.status == 200 && courier?["email"] as? String == "courier@x.com", "\(couriers.text)")
            #expect(courier?["on_duty"] as? Bool == false)
            #expect(try await api.send(suite, "GET", "/v1/users?role=staff", token: supervisor).status == 403)
            let everyone = try await api.send(suite, "GET", "/v1/users", token: supervisor)
            #expect((everyone.object["data"] as? [[String: Any]])?.map { $0["role"] as? String } == ["courier"])
            #expect(try await api.send(suite, "GET", "/v1/applications", token: supervisor).status == 200)
            #expect(try await api.send(suite, "GET", "/v1/payments/\(payment)", token: supervisor).status == 404)
            let renamed = try await api.send(
                suite, "PATCH", "/v1/stores/\(store)", token: supervisor, json: ["name": "Mine"])
            #expect(renamed.status == 403, "\(renamed.text)")

            // The support desk: reads orders and customers, cancels, tends customers' notifications.
            let refused = try await api.send(
                suite, "POST", "/v1/orders/\(second)/actions/accept", token: support, json: [:])
            #expect(refused.status == 403, "\(refused.text)")
            let cancelled = try await api.send(
                suite, "POST", "/v1/orders/\(second)/actions/cancel", token: support,
                json: ["reason": "The customer called to cancel"])
            #expect(
                cancelled.status == 200 && cancelled.object["status"] as? String == "cancelled", "\(cancelled.text)")
            let records = try await api.send(suite, "GET", "/v1/stores/\(store)/customers", token: support)
            #expect((records.object["data"] as? [[String: Any]])?.first?["id"] as? String == recordID)
            let edit = try await api.send(
                suite, "PATCH", "/v1/customers/\(recordID)", token: support, json: ["notes": "called"])
            #expect(edit.status == 403, "\(edit.text)")
            let customers = try await api.send(suite, "GET", "/v1/users?role=customer", token: support)
            #expect((customers.object["data"] as? [[String: Any]])?.map { $0["id"] as? String } == [customerID])
            var inbox: [[String: Any]] = []
            #expect(
                try await waitUntil {
                    inbox =
                        try await api.send(suite, "GET", "/v1/users/\(customerID)/notifications", token: support)
                        .object["data"] as? [[String: Any]] ?? []
                    return !inbox.isEmpty
                })
            let seq = inbox.first?["seq"] as? Int ?? 0
            let resend = try await api.send(
                suite, "POST", "/v1/users/\(customerID)/notifications/\(seq)/resend", token: support)
            #expect(resend.status == 422 && resend.error["reason"] as? String == "push_disabled", "\(resend.text)")
            let staffID = try await api.send(suite, "GET", "/v1/me", token: staff).object["id"] as? String ?? ""
            let notTheirs = try await api.send(suite, "GET", "/v1/users/\(staffID)/notifications", token: support)
            #expect(notTheirs.status == 404)
            let byOwnerInbox = try await api.send(
                suite, "GET", "/v1/users/\(customerID)/notifications", token: owner)
            #expect(byOwnerInbox.status == 404)
            #expect(try await api.send(suite, "GET", "/v1/products/\(product)", token: support).status == 404)

            // The accountant: every store's payments, receipts and statistics; no refunds, no orders.
            let takings = try await api.send(suite, "GET", "/v1/stores/\(store)/payments", token: accountant)
            #expect((takings.object["data"] as? [[String: Any]])?.map { $0["id"] as? String } == [payment])
            let today = StatsContribution.day(of: Date(), in: "Asia/Jerusalem")
            let stats = try await api.send(
                suite, "GET", "/v1/stores/\(store)/stats?from=\(today)&to=\(today)", token: accountant)
            #expect(stats.status == 200, "\(stats.text)")
            #expect(try await api.send(suite, "GET", "/v1/stores/\(store)/receipts", token: accountant).status == 200)
            let refund = try await api.send(
                suite, "POST", "/v1/payments/\(payment)/refunds", token: accountant,
                json: ["amount": 100, "reason": "Spilt"], headers: ["Idempotency-Key": "acc"])
            #expect(refund.status == 403, "\(refund.text)")
            #expect(try await api.send(suite, "GET", "/v1/orders/\(first)", token: accountant).status == 404)
            #expect(try await api.send(suite, "GET", "/v1/stores/\(store)/customers", token: accountant).status == 404)

            // The social-media staff: the store's public profile and its products' texts alone.
            let profile = try await api.send(
                suite, "PATCH", "/v1/stores/\(store)", token: social,
                json: ["description": "Cold drinks since 1962", "cuisine": "Drinks"])
            #expect(profile.status == 200 && profile.object["description"] as? String == "Cold drinks since 1962")
            let pricing = try await api.send(
                suite, "PATCH", "/v1/stores/\(store)", token: social, json: ["minimum_order": 5000])
            #expect(pricing.status == 403, "\(pricing.text)")
            let texts = try await api.send(
                suite, "PATCH", "/v1/products/\(product)", token: social,
                json: ["name": "Cola Zero", "description": "No sugar"])
            #expect(texts.status == 200 && texts.object["name"] as? String == "Cola Zero", "\(texts.text)")
            let price = try await api.send(suite, "PATCH", "/v1/products/\(product)", token: social, json: ["price": 1])
            #expect(price.status == 403, "\(price.text)")
            #expect(try await api.send(suite, "GET", "/v1/stores/\(store)/products", token: social).status == 200)
            #expect(try await api.send(suite, "GET", "/v1/stores/\(store)/payments", token: social).status == 404)
            #expect(try await api.send(suite, "GET", "/v1/orders/\(first)", token: social).status == 404)
        }
    }
}
