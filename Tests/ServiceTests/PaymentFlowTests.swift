import Contracts
import Domain
import Foundation
import Runtime
import Storage
import TestSupport
import Testing

@testable import Payments

/// The payment lifecycle through the gateway: prices from the catalog, stock held and then sold
/// or given back, the cashier's and the providers' steps, and every refusal named.
@Suite("Payments")
struct PaymentFlowTests {
    let api: API

    init() throws { api = try API() }

    /// A store with a stock-tracked product (price 9.00, VAT 17%) of `quantity` units, whose
    /// staff may refund up to 100.00 of what they took: the store's id, the product's and a
    /// staff member's token, the staff member clocked in unless `clockedIn` is false.
    static func setUp(_ api: API, _ suite: any Suite, quantity: Int, clockedIn: Bool = true) async throws
        -> (store: String, product: String, staff: String)
    {
        let admin = try await api.admin(suite)
        let store = try await api.createStore(
            suite, admin: admin, ["name": "Kiosk", "address": "1 Herzl St", "staff_refund_limit": 10_000])
        _ = try await api.createUser(suite, admin: admin, ["email": "staff@k.com", "role": "staff", "store_id": store])
        let product = try await api.send(
            suite, "POST", "/v1/stores/\(store)/products", token: admin,
            json: ["name": "Cola", "price": 900, "vat_rate_bp": 1700, "track_stock": true, "quantity": quantity])
        try #require(product.status == 201, "\(product.text)")
        let staff = try await api.token(suite, "staff@k.com")
        if clockedIn { try await clockIn(api, suite, staff) }
        return (store, product.object["id"] as! String, staff)
    }

    /// Clocks the holder of `token` in at their store: cash passes only through an open shift's
    /// drawer.
    static func clockIn(_ api: API, _ suite: any Suite, _ token: String) async throws {
        let reply = try await api.send(suite, "POST", "/v1/shifts/clock-in", token: token, json: [:])
        try #require(reply.status == 201, "\(reply.text)")
    }

    /// Rings up `units` of the product, paid by `method`.
    func ringUp(
        _ suite: any Suite, _ staff: String, product: String, units: Int, method: String = "cash",
        extra: [String: Any] = [:], key: String = UUID().uuidString
    ) async throws -> Reply {
        var body: [String: Any] = ["items": [["product_id": product, "quantity": units]], "method": method]
        body.merge(extra) { $1 }
        return try await api.send(
            suite, "POST", "/v1/payments", token: staff, json: body, headers: ["Idempotency-Key": key])
    }

    /// A provider's report, signed with the provider's secret at `at` unless told otherwise,
    /// with the provider's reference for the payment and, when given, the amount taken (ILS).
    func report(
        _ suite: any Suite, payment: String, type: String, id: String = UUID().uuidString, amount: Int? = nil,
        reference: String? = nil, withReference: Bool = true, provider: String = "acme-pay", secret: String? = nil,
        at: Date = Date(), signature: String? = nil, settlement: [String: Any]? = nil
    ) async throws -> Reply {
        var fields: [String: Any] = ["id": id, "provider": provider, "payment_id": payment, "type": type]
        fields["settlement"] = settlement
        if withReference { fields["provider_ref"] = reference ?? "ch_\(payment.prefix(8))" }
        if let amount { fields.merge(["amount": amount, "currency": "ILS"]) { $1 } }
        let body = try JSONSerialization.data(withJSONObject: fields)
        let text = String(decoding: body, as: UTF8.self)
        let header =
            signature
            ?? OrderlySignature.header(
                body: text, secret: secret ?? InProcessSuite.providers[provider] ?? "unknown-secret-0123456789", at: at)
        return try await api.send(
            suite, "POST", "/v1/payments/provider-events", raw: body,
            headers: ["Orderly-Signature": header, "Content-Type": "application/json"])
    }

    func stock(_ suite: any Suite, _ product: String, _ token: String) async throws -> (quantity: Int, reserved: Int) {
        let reply = try await api.send(suite, "GET", "/v1/products/\(product)", token: token)
        return (reply.object["quantity"] as? Int ?? -1, reply.object["reserved"] as? Int ?? -1)
    }

    @Test("a cash payment is priced by the catalog, holds its stock, and sells it when the cashier confirms")
    func cash() async throws {
        try await InProcessSuite.with { suite in
            let (_, product, staff) = try await Self.setUp(api, suite, quantity: 10)
            let created = try await api.send(
                suite, "POST", "/v1/payments", token: staff,
                json: [
                    "items": [
                        ["product_id": product, "quantity": 2],
                        ["name": "Bag", "unit_price": 50, "quantity": 1, "vat_rate_bp": 1700],
                    ],
                    "tip": 100, "method": "cash",
                ], headers: ["Idempotency-Key": "ring-1"])
            try #require(created.status == 201, "\(created.text)")
            let id = created.object["id"] as! String
            let items = created.object["items"] as? [[String: Any]] ?? []
            #expect(items.first?["unit_price"] as? Int == 900 && items.first?["tracked"] as? Bool == true)
            #expect(created.object["subtotal"] as? Int == 1850 && created.object["amount"] as? Int == 1950)
            #expect(created.object["status"] as? String == "pending" && created.object["expires_at"] is String)
            #expect(created.object["vat"] as? Int == 262 + 7)
            #expect(try await stock(suite, product, staff) == (10, 2))

            let short = try await api.send(
                suite, "POST", "/v1/payments/\(id)/confirm", token: staff, json: ["amount_tendered": 1000])
            #expect(short.status == 422 && (short.error["details"] as? [String: Any])?["amount_tendered"] != nil)
            let paid = try await api.send(
                suite, "POST", "/v1/payments/\(id)/confirm", token: staff, json: ["amount_tendered": 2000])
            try #require(paid.status == 200, "\(paid.text)")
            #expect(paid.object["status"] as? String == "completed" && paid.object["change_due"] as? Int == 50)
            #expect(paid.object["expires_at"] == nil)
            #expect(try await waitUntil { try await stock(suite, product, staff) == (8, 0) })
            let ledger = try await api.send(suite, "GET", "/v1/products/\(product)/stock-ledger", token: staff)
            let sale = (ledger.object["data"] as? [[String: Any]])?.last
            #expect(sale?["reason"] as? String == "sale" && sale?["adjustment"] as? Int == -2)

            // Completed: neither confirmed again nor cancelled, only refunded.
            for path in ["confirm", "cancel"] {
                let again = try await api.send(
                    suite, "POST", "/v1/payments/\(id)/\(path)", token: staff, json: ["amount_tendered": 2000])
                #expect(again.status == 422 && again.error["reason"] as? String == "illegal_transition")
                #expect(
                    (again.error["details"] as? [String: Any])?["allowed"] as? [String] == [
                        "partially_refunded", "refunded",
                    ])
            }

            let receiptID = paid.object["receipt_id"] as! String
            let text = try await api.send(suite, "GET", "/v1/receipts/\(receiptID)/text", token: staff)
            #expect(text.status == 200 && text.headers["content-type"]?.hasPrefix("text/plain") == true)
            for expected in ["Kiosk", "1 Herzl St", "Receipt #1", "Cola", "2 x 9.00 ILS", "incl. VAT 17%", "TOTAL"] {
                #expect(text.text.contains(expected), "\(expected) missing from\n\(text.text)")
            }
            #expect(text.text.split(separator: "\n").allSatisfy { $0.count <= 42 })
            let plain = try await api.send(
                suite, "GET", "/v1/receipts/\(receiptID)", token: staff, headers: ["Accept": "text/plain"])
            #expect(plain.text == text.text)
            // What the text prints is in the receipt's fields too.
            let fields = try await api.send(suite, "GET", "/v1/receipts/\(receiptID)", token: staff)
            #expect(fields.object["store_name"] as? String == "Kiosk", "\(fields.text)")
            let lines = fields.object["items"] as? [[String: Any]] ?? []
            #expect(lines.map { $0["name"] as? String } == ["Cola", "Bag"], "\(fields.text)")
            #expect(lines.first?["quantity"] as? Int == 2 && lines.first?["unit_price"] as? Int == 900)
            #expect(lines.first?["total"] as? Int == 1800 && lines.first?["vat_rate_bp"] as? Int == 1700)
            #expect(
                api.document.check(
                    method: "GET", path: "/v1/receipts/{id}", status: fields.status, body: fields.body,
                    contentType: fields.headers["content-type"]
                ).isEmpty)
        }
    }

    @Test("a card payment moves only forward by its provider's reports; one that fails gives its stock back")
    func card() async throws {
        try await InProcessSuite.with { suite in
            let (_, product, staff) = try await Self.setUp(api, suite, quantity: 5)
            let created = try await ringUp(suite, staff, product: product, units: 3, method: "card")
            try #require(created.status == 201, "\(created.text)")
            let id = created.object["id"] as! String
            let reservation = created.object["reservation_id"] as! String
            let cashStep = try await api.send(
                suite, "POST", "/v1/payments/\(id)/confirm", token: staff, json: ["amount_tendered": 5000])
            #expect(cashStep.status == 422 && cashStep.error["reason"] as? String == "provider_payment")

            let confirmed = try await report(suite, payment: id, type: "confirmed", id: "evt-1")
            #expect(
                confirmed.object["outcome"] as? String == "applied"
                    && confirmed.object["status"] as? String == "confirmed")
            // Kept while the provider works on it: the hold no longer expires.
            #expect(
                try await waitUntil {
                    let held = try await api.send(suite, "GET", "/v1/reservations/\(reservation)", token: staff)
                    return held.object["status"] as? String == "held" && held.object["expires_at"] == nil
                })
            let again = try await report(suite, payment: id, type: "confirmed", id: "evt-1")
            #expect(again.object["outcome"] as? String == "duplicate")
            #expect(
                try await report(suite, payment: id, type: "processing").object["status"] as? String == "processing")
            let cancel = try await api.send(suite, "POST", "/v1/payments/\(id)/cancel", token: staff)
            #expect(cancel.status == 422 && cancel.error["reason"] as? String == "illegal_transition")
            #expect((cancel.error["details"] as? [String: Any])?["allowed"] as? [String] == ["completed", "failed"])
            let paid = created.object["amount"] as? Int
            let other = try await report(suite, payment: id, type: "completed", amount: paid, provider: "other-pay")
            #expect(other.status == 422 && other.error["reason"] as? String == "other_provider")

            #expect(try await report(suite, payment: id, type: "failed").object["status"] as? String == "failed")
            #expect(try await waitUntil { try await stock(suite, product, staff) == (5, 0) })
            let late = try await report(suite, payment: id, type: "completed", amount: paid)
            #expect(late.object["outcome"] as? String == "ignored" && late.object["status"] as? String == "failed")
            let read = try await api.send(suite, "GET", "/v1/payments/\(id)", token: staff)
            #expect(read.object["status"] as? String == "failed" && read.object["receipt_id"] == nil)
        }
    }

    @Test("a report out of order is ignored; a completed card payment sells its stock once and gets a receipt")
    func outOfOrder() async throws {
        try await InProcessSuite.with { suite in
            let (store, product, staff) = try await Self.setUp(api, suite, quantity: 5)
            let card = try await api.send(
                suite, "POST", "/v1/stores/\(store)/cards", token: staff, json: ["uid": "04A224B1"])
            try #require(card.status == 201, "\(card.text)")
            let created = try await ringUp(
                suite, staff, product: product, units: 2, method: "nfc", extra: ["card_uid": "04A224B1"])
            let id = created.object["id"] as! String
            // What it was settled in is checked field by field, and only a completed report carries it.
            let settled: [String: Any] = [
                "currency": "RLUSD", "amount": "12.50", "tx_hash": String(repeating: "A1", count: 32),
            ]
            let early = try await report(suite, payment: id, type: "confirmed", settlement: settled)
            #expect(early.status == 400 && (early.error["details"] as? [String: Any])?["settlement"] != nil)
            let malformed = try await report(
                suite, payment: id, type: "completed", amount: created.object["amount"] as? Int,
                settlement: ["currency": "rlusd", "amount": "1.2.3", "tx_hash": "0x-1"])
            #expect(
                Set(((malformed.error["details"] as? [String: Any]) ?? [:]).keys) == [
                    "settlement.currency", "settlement.amount", "settlement.tx_hash",
                ], "\(malformed.text)")
            let completed = try await report(
                suite, payment: id, type: "completed", amount: created.object["amount"] as? Int, settlement: settled)
            #expect(completed.object["outcome"] as? String == "applied")
            let processing = try await report(suite, payment: id, type: "processing")
            #expect(processing.object["outcome"] as? String == "ignored")
            #expect(try await waitUntil { try await stock(suite, product, staff) == (3, 0) })
            let read = try await api.send(suite, "GET", "/v1/payments/\(id)", token: staff)
            #expect(read.object["status"] as? String == "completed" && read.object["receipt_id"] is String)
            #expect(read.object["provider"] as? String == "acme-pay" && read.object["provider_ref"] is String)
            let settlement = read.object["settlement"] as? [String: Any]
            #expect(settlement?["currency"] as? String == "RLUSD" && settlement?["amount"] as? String == "12.50")
            #expect(settlement?["tx_hash"] as? String == String(repeating: "A1", count: 32))
            // At the top level too, on the payment and on its receipt, as a till reads them.
            let receiptJSON = try await api.send(
                suite, "GET", "/v1/receipts/\(read.object["receipt_id"] as! String)", token: staff)
            for object in [read.object, receiptJSON.object] {
                #expect(object["tx_hash"] as? String == String(repeating: "A1", count: 32), "\(object)")
                #expect(
                    object["settled_amount"] as? String == "12.50" && object["settled_currency"] as? String == "RLUSD")
            }
            let receipt = try await api.send(
                suite, "GET", "/v1/receipts/\(read.object["receipt_id"] as! String)/text", token: staff)
            #expect(
                receipt.text.contains("Settled 12.50 RLUSD")
                    && receipt.text.replacingOccurrences(of: "\n", with: "").contains(
                        "Tx" + String(repeating: "A1", count: 32)),
                "\(receipt.text)")
            #expect(receipt.text.split(separator: "\n").allSatisfy { $0.count <= 42 })
        }
    }

    @Test(
        "a report with a wrong, stale or missing signature or from an unknown provider is refused; a replay changes nothing"
    )
    func signatures() async throws {
        try await InProcessSuite.with { suite in
            let (_, product, staff) = try await Self.setUp(api, suite, quantity: 5)
            let id = try await ringUp(suite, staff, product: product, units: 1, method: "card").object["id"] as! String
            let wrong = try await report(suite, payment: id, type: "completed", secret: "not-the-secret-0123456789")
            #expect(wrong.status == 401 && wrong.error["reason"] as? String == "bad_signature")
            let stale = try await report(suite, payment: id, type: "completed", at: Date().addingTimeInterval(-301))
            #expect(stale.status == 401 && stale.error["reason"] as? String == "stale_signature")
            let missing = try await report(suite, payment: id, type: "completed", signature: "t=1")
            #expect(missing.status == 401 && missing.error["reason"] as? String == "bad_signature")
            // A provider nobody configured has no secret here; a configured one's report names it.
            let unknown = try await report(suite, payment: id, type: "completed", provider: "nobody")
            #expect(unknown.status == 401 && unknown.error["reason"] as? String == "bad_signature")
            let misnamed = try await report(
                suite, payment: id, type: "completed", provider: "nobody", secret: InProcessSuite.providers["acme-pay"])
            #expect(misnamed.status == 401 && misnamed.error["reason"] as? String == "unknown_provider")
            // A signature made for another body does not carry over.
            let body = #"{"id":"e","provider":"acme-pay","payment_id":"\#(id)","type":"failed"}"#
            let borrowed = OrderlySignature.header(
                body: body.replacingOccurrences(of: "failed", with: "confirmed"),
                secret: InProcessSuite.providers["acme-pay"]!, at: Date())
            let tampered = try await api.send(
                suite, "POST", "/v1/payments/provider-events", raw: Data(body.utf8),
                headers: ["Orderly-Signature": borrowed, "Content-Type": "application/json"])
            #expect(tampered.status == 401)
            #expect(
                try await api.send(suite, "GET", "/v1/payments/\(id)", token: staff).object["status"] as? String
                    == "pending")
            // A malformed signature is refused before the body is read: a stranger learns nothing of
            // what the body should be (the fuzzer once sent `0` with a header of zeros: 400 then).
            // Nor does a well-formed signature no provider's secret made.
            let now = Int(Date().timeIntervalSince1970)
            for (signature, sent) in [
                (String(repeating: "0", count: 1000), "0"), ("t=1", "{"),
                ("t=\(now),v1=\(String(repeating: "ab", count: 32))", "{"),
            ] {
                let unread = try await api.send(
                    suite, "POST", "/v1/payments/provider-events", raw: Data(sent.utf8),
                    headers: ["Orderly-Signature": signature, "Content-Type": "application/json"])
                #expect(unread.status == 401 && unread.error["reason"] as? String == "bad_signature", "\(unread.text)")
            }

            // The same signed report twice: applied once.
            let signed = OrderlySignature.header(body: body, secret: InProcessSuite.providers["acme-pay"]!, at: Date())
            var outcomes: [String] = []
            for _ in 0..<2 {
                let reply = try await api.send(
                    suite, "POST", "/v1/payments/provider-events", raw: Data(body.utf8),
                    headers: ["Orderly-Signature": signed, "Content-Type": "application/json"])
                outcomes.append(reply.object["outcome"] as? String ?? reply.text)
            }
            #expect(outcomes == ["applied", "duplicate"])
        }
    }

    @Test("a pending payment expires when its time runs out, and a cancelled one; both give their stock back")
    func expiryAndCancel() async throws {
        try await InProcessSuite.with { suite in
            let (_, product, staff) = try await Self.setUp(api, suite, quantity: 5)
            let cancelled = try await ringUp(suite, staff, product: product, units: 2)
            #expect(try await stock(suite, product, staff) == (5, 2))
            // Held for the second it is pending; under load the sweep may already have ended it.
            let expiring = try await ringUp(
                suite, staff, product: product, units: 1, method: "card", extra: ["expires_in_seconds": 1])
            #expect(expiring.status == 201, "\(expiring.text)")
            let cancel = try await api.send(
                suite, "POST", "/v1/payments/\(cancelled.object["id"] as! String)/cancel", token: staff)
            #expect(cancel.object["status"] as? String == "cancelled")
            let expiringID = expiring.object["id"] as! String
            #expect(
                try await waitUntil {
                    try await api.send(suite, "GET", "/v1/payments/\(expiringID)", token: staff)
                        .object["status"] as? String == "expired"
                })
            #expect(try await waitUntil { try await stock(suite, product, staff) == (5, 0) })
            let late = try await report(suite, payment: expiringID, type: "confirmed")
            #expect(late.object["outcome"] as? String == "ignored")
        }
    }

    @Test("a repeated keyed request answers as the first and holds no more stock; every bad input is named")
    func repeatsAndBadInput() async throws {
        try await InProcessSuite.with { suite in
            let (store, product, staff) = try await Self.setUp(api, suite, quantity: 5)
            let first = try await ringUp(suite, staff, product: product, units: 2, key: "same")
            let second = try await ringUp(suite, staff, product: product, units: 2, key: "same")
            #expect(first.object["id"] as? String == second.object["id"] as? String)
            #expect(try await stock(suite, product, staff) == (5, 2))

            let short = try await ringUp(suite, staff, product: product, units: 4)
            #expect(short.status == 409 && short.error["reason"] as? String == "insufficient_stock")
            #expect(try await stock(suite, product, staff) == (5, 2))

            func refusal(_ body: [String: Any]) async throws -> [String: Any] {
                let reply = try await api.send(
                    suite, "POST", "/v1/payments", token: staff, json: body,
                    headers: ["Idempotency-Key": UUID().uuidString])
                #expect(reply.status == 400, "\(reply.text)")
                return reply.error["details"] as? [String: Any] ?? [:]
            }
            let cases: [([String: Any], String)] = [
                (["method": "cash"], "items"),
                (["items": [["product_id": product, "quantity": 0]], "method": "cash"], "items[0].quantity"),
                (
                    ["items": [["product_id": product, "quantity": 1, "unit_price": 1]], "method": "cash"],
                    "items[0].unit_price"
                ),
                (
                    [
                        "items": [["product_id": product, "quantity": 1], ["product_id": product, "quantity": 1]],
                        "method": "cash",
                    ],
                    "items[1].product_id"
                ),
                (
                    ["items": [["product_id": UUID().uuidString.lowercased(), "quantity": 1]], "method": "cash"],
                    "items[0].product_id"
                ),
                (
                    ["items": [["unit_price": 100, "quantity": 1, "vat_rate_bp": 0]], "method": "cash"], "items[0].name"
                ),
                (
                    ["items": [["name": "Bag", "unit_price": 100, "quantity": 1]], "method": "cash"],
                    "items[0].vat_rate_bp"
                ),
                (["items": [["name": "Bag", "unit_price": 100, "quantity": 1, "vat_rate_bp": 0]]], "method"),
                (
                    [
                        "items": [["name": "Bag", "unit_price": 1, "quantity": 1, "vat_rate_bp": 0]], "method": "cash",
                        "tip": -1,
                    ], "tip"
                ),
                (
                    [
                        "items": [["name": "Bag", "unit_price": 1, "quantity": 1, "vat_rate_bp": 0]], "method": "cash",
                        "amount": 5,
                    ], "amount"
                ),
                (
                    [
                        "items": [["name": "Bag", "unit_price": 1, "quantity": 1, "vat_rate_bp": 0]], "method": "cash",
                        "expires_in_seconds": 0,
                    ],
                    "expires_in_seconds"
                ),
                (["order_id": UUID().uuidString.lowercased(), "method": "cash", "store_id": store], "order_id"),
            ]
            for (body, field) in cases {
                let details = try await refusal(body)
                #expect(details[field] != nil, "\(field) not named in \(details)")
            }
            #expect(try await stock(suite, product, staff) == (5, 2))
        }
    }
}

extension PaymentFlowTests {
    /// Rings up and completes a cash payment of `units` of the product.
    func sell(_ suite: any Suite, _ staff: String, product: String, units: Int) async throws -> [String: Any] {
        let id = try await ringUp(suite, staff, product: product, units: units).object["id"] as! String
        let paid = try await api.send(
            suite, "POST", "/v1/payments/\(id)/confirm", token: staff, json: ["amount_tendered": 100_000])
        try #require(paid.status == 200, "\(paid.text)")
        return paid.object
    }

    func receiptNumber(_ suite: any Suite, _ staff: String, _ id: Any?) async throws -> Int? {
        try await api.send(suite, "GET", "/v1/receipts/\(id as? String ?? "")", token: staff).object["number"] as? Int
    }

    @Test(
        "refunds: never more than is left, even when two race for the last of it; restocked units come back; each gets a receipt",
        arguments: TestDatabase.kinds)
    func refunds(kind: Database.Kind) async throws {
        try await InProcessSuite.with(on: kind) { suite in
            let (_, product, staff) = try await Self.setUp(api, suite, quantity: 10)
            let payment = try await sell(suite, staff, product: product, units: 3)
            let id = payment["id"] as! String
            #expect(payment["amount"] as? Int == 2700)
            #expect(try await waitUntil { try await stock(suite, product, staff) == (7, 0) })
            func refund(_ body: [String: Any], key: String = UUID().uuidString) async throws -> Reply {
                try await api.send(
                    suite, "POST", "/v1/payments/\(id)/refunds", token: staff, json: body,
                    headers: ["Idempotency-Key": key])
            }
            let first = try await refund(
                ["amount": 1800, "reason": "Dented can", "restock_lines": [["product_id": product, "quantity": 2]]])
            try #require(first.status == 201, "\(first.text)")
            #expect(try await waitUntil { try await stock(suite, product, staff) == (9, 0) })
            let ledger = try await api.send(suite, "GET", "/v1/products/\(product)/stock-ledger", token: staff)
            let last = (ledger.object["data"] as? [[String: Any]])?.last
            #expect(last?["reason"] as? String == "return" && last?["adjustment"] as? Int == 2)
            let overReturn = try await refund(
                ["amount": 1, "reason": "More", "restock_lines": [["product_id": product, "quantity": 2]]])
            #expect(
                overReturn.status == 400
                    && (overReturn.error["details"] as? [String: Any])?["restock_lines[0].quantity"] != nil)

            // Two refunds race for the last 9.00: one gets it.
            async let a = refund(["amount": 900, "reason": "Race A"])
            async let b = refund(["amount": 900, "reason": "Race B"])
            let statuses = [try await a, try await b].map(\.status).sorted()
            #expect(statuses == [201, 422])
            let after = try await api.send(suite, "GET", "/v1/payments/\(id)", token: staff)
            #expect(after.object["refunded_amount"] as? Int == 2700 && after.object["status"] as? String == "refunded")
            let more = try await refund(["amount": 1, "reason": "Again"])
            #expect(more.status == 422 && more.error["reason"] as? String == "illegal_transition")

            // The sale's receipt is #1, the refunds' #2 and #3, their texts saying so.
            #expect(try await receiptNumber(suite, staff, payment["receipt_id"]) == 1)
            #expect(try await receiptNumber(suite, staff, first.object["receipt_id"]) == 2)
            let text = try await api.send(
                suite, "GET", "/v1/receipts/\(first.object["receipt_id"] as! String)/text", token: staff)
            #expect(
                text.text.contains("Refund #2") && text.text.contains("For receipt #1")
                    && text.text.contains("Dented can"))
            // Its items are the units put back, at the sale's price; nobody is named as ringing it up.
            let returned = try await api.send(
                suite, "GET", "/v1/receipts/\(first.object["receipt_id"] as! String)", token: staff)
            let back = returned.object["items"] as? [[String: Any]] ?? []
            #expect(back.count == 1 && back.first?["quantity"] as? Int == 2, "\(returned.text)")
            #expect(back.first?["unit_price"] as? Int == 900 && returned.object["staff_name"] == nil)

            let pending = try await ringUp(suite, staff, product: product, units: 1).object["id"] as! String
            let early = try await api.send(
                suite, "POST", "/v1/payments/\(pending)/refunds", token: staff, json: ["reason": "No"],
                headers: ["Idempotency-Key": "early"])
            #expect(
                early.status == 422 && (early.error["details"] as? [String: Any])?["status"] as? String == "pending")
        }
    }

    @Test(
        "50 payments completed at once in one store get receipts 1 to 50", arguments: TestDatabase.kinds)
    func receiptNumbers(kind: Database.Kind) async throws {
        try await InProcessSuite.with(on: kind) { suite in
            let (_, product, staff) = try await Self.setUp(api, suite, quantity: 100)
            let numbers = try await withThrowingTaskGroup(of: Int?.self) { group in
                for _ in 0..<50 {
                    group.addTask {
                        try await receiptNumber(
                            suite, staff, try await sell(suite, staff, product: product, units: 1)["receipt_id"])
                    }
                }
                return try await group.reduce(into: [Int]()) { if let number = $1 { $0.append(number) } }
            }
            #expect(numbers.sorted() == Array(1...50))
            #expect(try await waitUntil { try await stock(suite, product, staff) == (50, 0) })
        }
    }
}

extension PaymentFlowTests {
    @Test(
        "a payment for an order pays what is left of it by default; the order's paid_amount and payment_status follow payments and refunds"
    )
    func orderPayments() async throws {
        try await InProcessSuite.with { suite in
            let (_, _, staff) = try await Self.setUp(api, suite, quantity: 1)
            let order = try await api.send(
                suite, "POST", "/v1/orders", token: staff, json: ["fulfillment": "pickup", "customer_name": "Dana"],
                headers: ["Idempotency-Key": "order"])
            try #require(order.status == 201, "\(order.text)")
            let orderID = order.object["id"] as! String
            #expect(order.object["paid_amount"] as? Int == 0 && order.object["payment_status"] as? String == "unpaid")
            let line = try await api.send(
                suite, "POST", "/v1/orders/\(orderID)/items", token: staff,
                json: ["type": "repair", "description": "Screen", "unit_price_gross": 10_000])
            try #require(line.status == 201, "\(line.text)")
            func pay(_ body: [String: Any]) async throws -> Reply {
                try await api.send(
                    suite, "POST", "/v1/payments", token: staff,
                    json: body.merging(["order_id": orderID, "method": "cash"]) { $1 },
                    headers: ["Idempotency-Key": UUID().uuidString])
            }
            func paidState() async throws -> (Int?, String?) {
                let read = try await api.send(suite, "GET", "/v1/orders/\(orderID)", token: staff)
                return (read.object["paid_amount"] as? Int, read.object["payment_status"] as? String)
            }
            let tooMuch = try await pay(["amount": 10_001])
            #expect(tooMuch.status == 422 && (tooMuch.error["details"] as? [String: Any])?["amount"] != nil)
            let part = try await pay(["amount": 4_000, "tip": 500])
            #expect(part.object["subtotal"] as? Int == 4_000 && part.object["amount"] as? Int == 4_500)
            let partID = part.object["id"] as! String
            _ = try await api.send(
                suite, "POST", "/v1/payments/\(partID)/confirm", token: staff, json: ["amount_tendered": 4_500])
            #expect(try await waitUntil { try await paidState() == (4_000, "partially_paid") })
            // Two payments of what is left rung up at once: one takes it.
            async let one = pay([:])
            async let other = pay([:])
            let both = [try await one, try await other]
            #expect(both.map(\.status).sorted() == [201, 422])
            let rest = try #require(both.first { $0.status == 201 })
            #expect(rest.object["subtotal"] as? Int == 6_000)
            _ = try await api.send(
                suite, "POST", "/v1/payments/\(rest.object["id"] as! String)/confirm", token: staff,
                json: ["amount_tendered": 6_000])
            #expect(try await waitUntil { try await paidState() == (10_000, "paid") })
            let paidUp = try await pay([:])
            #expect(paidUp.status == 422 && paidUp.error["reason"] as? String == "order_paid")
            let refund = try await api.send(
                suite, "POST", "/v1/payments/\(partID)/refunds", token: staff,
                json: ["amount": 4_000, "reason": "Goodwill"],
                headers: ["Idempotency-Key": "goodwill"])
            #expect(refund.status == 201)
            // The refund takes back the tip first: 3,500 of the first payment's 4,000 go.
            #expect(try await waitUntil { try await paidState() == (6_500, "partially_paid") })
            let history = try await api.send(suite, "GET", "/v1/orders/\(orderID)/history", token: staff)
            let changes = (history.object["data"] as? [[String: Any]])?.compactMap { $0["change"] as? String } ?? []
            #expect(
                changes.filter { $0.hasPrefix("payment_") } == [
                    "payment_completed", "payment_completed", "payment_refunded",
                ])
        }
    }
}

extension PaymentFlowTests {
    @Test(
        "a store's payments list newest first by status, method, staff and time, a page at a time; a receipt is found by number"
    )
    func lists() async throws {
        try await InProcessSuite.with { suite in
            let (store, product, staff) = try await Self.setUp(api, suite, quantity: 10)
            let admin = try await api.admin(suite)
            let sold = try await sell(suite, staff, product: product, units: 1)
            let card = try await ringUp(suite, staff, product: product, units: 1, method: "card")
            let byAdmin = try await api.send(
                suite, "POST", "/v1/payments", token: admin,
                json: ["store_id": store, "items": [["product_id": product, "quantity": 1]], "method": "cash"],
                headers: ["Idempotency-Key": "admin"])
            _ = try await api.createUser(
                suite, admin: admin, ["email": "owner@k.com", "role": "owner", "store_id": store])
            let owner = try await api.token(suite, "owner@k.com")
            func ids(_ query: String, as token: String? = nil) async throws -> [String] {
                let reply = try await api.send(
                    suite, "GET", "/v1/stores/\(store)/payments\(query)", token: token ?? owner)
                #expect(reply.status == 200, "\(reply.text)")
                return (reply.object["data"] as? [[String: Any]])?.compactMap { $0["id"] as? String } ?? []
            }
            let (soldID, cardID, adminID) =
                (sold["id"] as! String, card.object["id"] as! String, byAdmin.object["id"] as! String)
            #expect(try await ids("") == [adminID, cardID, soldID])
            #expect(try await ids("?status=completed") == [soldID])
            #expect(try await ids("?status=pending&method=card") == [cardID])
            #expect(try await ids("?method=cash,card&staff_id=\(sold["staff_id"] as! String)") == [cardID, soldID])
            let created = RFC3339.parse(card.object["created_at"] as! String)!
            #expect(try await ids("?from=\(RFC3339.format(created))") == [adminID, cardID])
            #expect(try await ids("?to=\(RFC3339.format(created))") == [soldID])
            // Staff see the payments they took, not the store's takings.
            #expect(try await ids("", as: staff) == [cardID, soldID])
            let others = try await api.send(
                suite, "GET", "/v1/stores/\(store)/payments?staff_id=\(byAdmin.object["staff_id"] as! String)",
                token: staff)
            #expect(others.status == 400)
            let first = try await api.send(suite, "GET", "/v1/stores/\(store)/payments?limit=2", token: owner)
            let cursor = try #require(first.object["next_cursor"] as? String)
            #expect(try await ids("?limit=2&cursor=\(cursor)") == [soldID])
            let backwards = try await api.send(
                suite, "GET", "/v1/stores/\(store)/payments?from=2026-02-01T00:00:00Z&to=2026-01-01T00:00:00Z",
                token: staff)
            #expect(backwards.status == 400 && (backwards.error["details"] as? [String: Any])?["to"] != nil)

            let reprint = try await api.send(suite, "GET", "/v1/stores/\(store)/receipts?number=1", token: staff)
            let found = (reprint.object["data"] as? [[String: Any]])?.first
            #expect(found?["id"] as? String == sold["receipt_id"] as? String && found?["text"] is String)
            let none = try await api.send(suite, "GET", "/v1/stores/\(store)/receipts?number=2", token: staff)
            #expect((none.object["data"] as? [Any])?.isEmpty == true)
            let otherStore = try await api.createStore(suite, admin: admin, ["name": "Other"])
            let foreign = try await api.send(suite, "GET", "/v1/stores/\(otherStore)/payments", token: staff)
            #expect(foreign.status == 404)
        }
    }
}

extension PaymentFlowTests {
    @Test(
        "shifts: staff clock in and out, managers clock their staff, the drawer's difference is counted, and a store may require it"
    )
    func shifts() async throws {
        try await InProcessSuite.with { suite in
            let (store, product, staff) = try await Self.setUp(api, suite, quantity: 10, clockedIn: false)
            let admin = try await api.admin(suite)
            _ = try await api.createUser(
                suite, admin: admin, ["email": "manager@k.com", "role": "manager", "store_id": store, "name": "Maya"])
            let manager = try await api.token(suite, "manager@k.com")
            let staffID = try await api.send(suite, "GET", "/v1/me", token: staff).object["id"] as! String
            #expect(try await api.send(suite, "GET", "/v1/me", token: staff).object["is_clocked_in"] as? Bool == false)

            // The manager clocks the staff member in, once the payments service knows them.
            var clockedIn = Reply(status: 0, headers: [:], body: Data())
            #expect(
                try await waitUntil {
                    clockedIn = try await api.send(
                        suite, "POST", "/v1/shifts/clock-in", token: manager,
                        json: ["user_id": staffID, "opening_cash": 10_000])
                    return clockedIn.status == 201
                })
            let again = try await api.send(suite, "POST", "/v1/shifts/clock-in", token: staff, json: [:])
            #expect(again.status == 409 && again.error["reason"] as? String == "already_clocked_in")
            let me = try await api.send(suite, "GET", "/v1/me", token: staff)
            #expect(me.object["is_clocked_in"] as? Bool == true && me.object["clocked_in_at"] is String)
            let managerID = try await api.send(suite, "GET", "/v1/me", token: manager).object["id"] as! String
            let upward = try await api.send(
                suite, "POST", "/v1/shifts/clock-in", token: staff, json: ["user_id": managerID])
            #expect(upward.status == 404)

            // Cash through the drawer: a sale of 27.00 and a refund of 5.00.
            let sale = try await sell(suite, staff, product: product, units: 3)
            #expect(sale["amount"] as? Int == 2_700)
            let receipt = try await api.send(
                suite, "GET", "/v1/receipts/\(sale["receipt_id"] as! String)/text", token: staff)
            #expect(receipt.text.contains("Served by Someone"), "\(receipt.text)")
            let named = try await api.send(suite, "GET", "/v1/receipts/\(sale["receipt_id"] as! String)", token: staff)
            #expect(named.object["staff_name"] as? String == "Someone", "\(named.text)")
            let refund = try await api.send(
                suite, "POST", "/v1/payments/\(sale["id"] as! String)/refunds", token: staff,
                json: ["amount": 500, "reason": "Change"], headers: ["Idempotency-Key": "drawer"])
            #expect(refund.status == 201)
            let out = try await api.send(
                suite, "POST", "/v1/shifts/clock-out", token: staff, json: ["counted_cash": 12_100])
            try #require(out.status == 200, "\(out.text)")
            #expect(out.object["cash_sales"] as? Int == 2_700 && out.object["cash_refunds"] as? Int == 500)
            #expect(out.object["expected_cash"] as? Int == 12_200 && out.object["difference"] as? Int == -100)
            let twice = try await api.send(
                suite, "POST", "/v1/shifts/clock-out", token: staff, json: ["counted_cash": 0])
            #expect(twice.status == 422 && twice.error["reason"] as? String == "not_clocked_in")

            let listed = try await api.send(suite, "GET", "/v1/stores/\(store)/shifts?open=false", token: manager)
            #expect((listed.object["data"] as? [[String: Any]])?.count == 1)
            #expect(try await api.send(suite, "GET", "/v1/stores/\(store)/shifts", token: staff).status == 404)

            // A store that requires it refuses staff who are not clocked in; owners and managers are not held to it.
            let required = try await api.send(
                suite, "PATCH", "/v1/stores/\(store)", token: admin, json: ["require_clock_in": true])
            #expect(required.object["require_clock_in"] as? Bool == true)
            let refused = try await ringUp(suite, staff, product: product, units: 1)
            #expect(refused.status == 422 && refused.error["reason"] as? String == "not_clocked_in")
            #expect(try await ringUp(suite, manager, product: product, units: 1).status == 201)
            #expect(try await api.send(suite, "POST", "/v1/shifts/clock-in", token: staff, json: [:]).status == 201)
            #expect(try await ringUp(suite, staff, product: product, units: 1).status == 201)
        }
    }
}

extension PaymentFlowTests {
    @Test(
        "statistics: revenue, tips, refunds, average ticket by day, staff member, method and product, equal to a recomputation from the payments",
        arguments: TestDatabase.kinds)
    func statistics(kind: Database.Kind) async throws {
        try await InProcessSuite.with(on: kind) { suite in
            let (store, product, staff) = try await Self.setUp(api, suite, quantity: 100)
            let admin = try await api.admin(suite)
            _ = try await api.createUser(
                suite, admin: admin, ["email": "owner@k.com", "role": "owner", "store_id": store])
            let owner = try await api.token(suite, "owner@k.com")
            try await Self.clockIn(api, suite, owner)
            let first = try await sell(suite, staff, product: product, units: 2)  // 18.00
            let second = try await sell(suite, owner, product: product, units: 1)  // 9.00
            let card =
                try await ringUp(
                    suite, staff, product: product, units: 3, method: "card", extra: ["tip": 300]
                ).object["id"] as! String  // 27.00 + 3.00
            _ = try await report(suite, payment: card, type: "completed", amount: 3000)
            _ = try await ringUp(suite, staff, product: product, units: 1)  // left pending: not counted
            let refund = try await api.send(
                suite, "POST", "/v1/payments/\(first["id"] as! String)/refunds", token: staff,
                json: ["amount": 400, "reason": "Spilt"], headers: ["Idempotency-Key": "spilt"])
            #expect(refund.status == 201)
            let today = StatsContribution.day(of: Date(), in: "Asia/Jerusalem")
            func stats() async throws -> [String: Any] {
                let reply = try await api.send(
                    suite, "GET", "/v1/stores/\(store)/stats?from=\(today)&to=\(today)", token: owner)
                return reply.object
            }
            #expect(
                try await waitUntil {
                    let totals = try await stats()["totals"] as? [String: Any]
                    return totals?["sales_count"] as? Int == 3 && totals?["refunds_count"] as? Int == 1
                })
            let read = try await stats()
            let totals = read["totals"] as? [String: Any] ?? [:]
            #expect(totals["revenue"] as? Int == 1_800 + 900 + 3_000 - 400)
            #expect(totals["tips"] as? Int == 300 && totals["refunds"] as? Int == 400)
            #expect(totals["average_ticket"] as? Int == (1_800 + 900 + 3_000) / 3)
            let methods = (read["methods"] as? [[String: Any]])?.map { $0["method"] as? String }
            #expect(methods == ["cash", "card"])
            let top = (read["top_products"] as? [[String: Any]])?.first
            #expect(top?["name"] as? String == "Cola" && top?["quantity"] as? Int == 6)
            let staffRows = read["staff"] as? [[String: Any]] ?? []
            #expect(
                Set(staffRows.compactMap { $0["staff_id"] as? String }) == [
                    first["staff_id"] as! String, second["staff_id"] as! String,
                ])

            // The read model equals a recomputation from the payments and refunds.
            let projection = StatsRepository(database: suite.paymentsDatabase)
            let days = try StatsDays(from: today, to: today)
            let storeID = StoreID(store)!
            let kept = try await projection.read(storeID, days, timezone: "Asia/Jerusalem")
            let recomputed = try await projection.recompute(storeID, days, timezone: "Asia/Jerusalem")
            #expect(kept == recomputed)
            #expect(kept.totals.revenue == 5_300)

            // Any range: one longer than a year is read from the months inside it and the days
            // at its ends, and answered by month, equal to the recomputation too.
            for (from, to) in [("2000-01-01", "2099-12-31"), ("2001-01-15", today), (today, "2099-12-30")] {
                let long = try StatsDays(from: from, to: to)
                #expect(long.byMonth && long.all.isEmpty && long.months.first == String(from.prefix(7)))
                let read = try await projection.read(storeID, long, timezone: "Asia/Jerusalem")
                #expect(read == (try await projection.recompute(storeID, long, timezone: "Asia/Jerusalem")), "\(from)")
                #expect(read.totals == kept.totals && read.days.isEmpty, "\(from)…\(to)")
                #expect(read.months.first { $0.month == String(today.prefix(7)) }?.figures == kept.totals)
            }
            let ends = try StatsDays(from: "2001-01-15", to: "2026-12-07").split
            #expect(ends.months == "2001-02"..."2026-11")
            #expect(ends.days == ["2001-01-15"..."2001-01-31", "2026-12-01"..."2026-12-07"])
            #expect(try StatsDays(from: "2024-02-01", to: "2026-02-28").split.days.isEmpty)
            let allTime = try await api.send(
                suite, "GET", "/v1/stores/\(store)/stats?from=2000-01-01&to=2099-12-31", token: owner)
            #expect(allTime.status == 200 && (allTime.object["months"] as? [Any])?.count == 1200, "\(allTime.status)")

            #expect(
                try await api.send(suite, "GET", "/v1/stores/\(store)/stats?from=\(today)&to=\(today)", token: staff)
                    .status == 404)
            for (query, field) in [
                ("from=2026-02-30&to=2026-03-01", "from"), ("from=2026-03-02&to=2026-03-01", "to"),
                ("from=1999-12-31&to=2026-03-01", "from"), ("from=2026-03-01&to=2100-01-01", "to"),
                ("to=2026-03-01", "from"),
            ] {
                let bad = try await api.send(suite, "GET", "/v1/stores/\(store)/stats?\(query)", token: owner)
                #expect(bad.status == 400 && (bad.error["details"] as? [String: Any])?[field] != nil, "\(query)")
            }
        }
    }

    @Test("a signature's time is checked without overflowing, however far it is from ours")
    func signatureTimes() throws {
        let secret = "acme-pay-secret-0123456789"
        for seconds in [Int64.min, Int64.max, 0] {
            let header = OrderlySignature.header(body: "{}", secret: secret, seconds: seconds)
            #expect(throws: OrderlyError.self) {
                try OrderlySignature.verify(header: header, body: "{}", secret: secret, now: Date(), tolerance: 300)
            }
        }
        let now = OrderlySignature.header(body: "{}", secret: secret, at: Date())
        try OrderlySignature.verify(header: now, body: "{}", secret: secret, now: Date(), tolerance: 300)
    }

    @Test("a day in the store's time zone, on days the clocks change too")
    func statisticsDays() throws {
        let newYork = "America/New_York"
        func at(_ text: String) -> Date { RFC3339.parse(text)! }
        // 2026-03-08 is 23 hours long in New York, 2026-11-01 25.
        #expect(StatsContribution.day(of: at("2026-03-08T04:59:59Z"), in: newYork) == "2026-03-07")
        #expect(StatsContribution.day(of: at("2026-03-08T05:00:00Z"), in: newYork) == "2026-03-08")
        #expect(StatsContribution.day(of: at("2026-03-09T03:59:59Z"), in: newYork) == "2026-03-08")
        #expect(StatsContribution.day(of: at("2026-03-09T04:00:00Z"), in: newYork) == "2026-03-09")
        #expect(StatsContribution.day(of: at("2026-11-02T04:59:59Z"), in: newYork) == "2026-11-01")
        #expect(StatsContribution.day(of: at("2026-11-02T05:00:00Z"), in: newYork) == "2026-11-02")
        #expect(StatsContribution.day(of: at("2026-10-24T21:30:00Z"), in: "Asia/Jerusalem") == "2026-10-25")
        let days = try StatsDays(from: "2026-03-07", to: "2026-03-09")
        #expect(days.all == ["2026-03-07", "2026-03-08", "2026-03-09"])
        #expect(try StatsDays(from: "2024-02-28", to: "2024-03-01").all.count == 3)
    }
}

/// Payments across processes: a payment falling due while the payments service is down.
@Suite("Payment processes", .serialized)
struct PaymentProcessTests {
    let api: API

    init() throws { api = try API() }

    @Test(
        "a payment that falls due while the payments service is down is expired, and its stock given back, once it is back"
    )
    func expiryAcrossRestart() async throws {
        try await RunningSuite.with { suite in
            let (_, product, staff) = try await PaymentFlowTests.setUp(api, suite, quantity: 3)
            let created = try await api.send(
                suite, "POST", "/v1/payments", token: staff,
                json: [
                    "items": [["product_id": product, "quantity": 2]], "method": "card", "expires_in_seconds": 1,
                ], headers: ["Idempotency-Key": "due"])
            try #require(created.status == 201, "\(created.text)")
            let id = created.object["id"] as! String
            let due = RFC3339.parse(created.object["expires_at"] as! String)!
            try await suite.restart("payments") {
                #expect(await waitUntil { Date() > due })
            }
            #expect(
                try await waitUntil {
                    try await api.send(suite, "GET", "/v1/payments/\(id)", token: staff).object["status"] as? String
                        == "expired"
                })
            #expect(
                try await waitUntil {
                    let after = try await api.send(suite, "GET", "/v1/products/\(product)", token: staff)
                    return after.object["reserved"] as? Int == 0 && after.object["quantity"] as? Int == 3
                })
        }
    }
}
