import Contracts
import Domain
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import Wire

/// `/v1/payments…`, `/v1/receipts…`, `/v1/shifts…` and a store's payments, receipts and
/// shifts, forwarded to the payments service.
struct PaymentRoutes: Sendable {
    let payments: any WireCaller

    func add(to v1: RouterGroup<GatewayContext>) {
        v1.post("payments") { request, context in
            let options = try context.callOptions(request)
            let draft = try await JSONBody.decode(PaymentDraft.self, from: request, context: context)
            let payment = try await payments.call(PaymentsAPI.createPayment, draft, options: options)
            return try JSONBody.response(payment, status: .created, version: payment.version)
        }
        // A provider's report carries no token: its signature, checked by the payments service
        // over the body exactly as sent, is its credential.
        v1.post("payments/provider-events") { request, context in
            let body = try await JSONBody.collect(request, context: context)
            let signed = SignedProviderEvent(
                body: String(buffer: body), signature: request.headers[.orderlySignature])
            let options = WireCallOptions(trace: request.traceParent)
            return try JSONBody.response(try await payments.call(PaymentsAPI.providerEvent, signed, options: options))
        }
        v1.get("payments/:id") { request, context in
            let options = try context.callOptions(request)
            let id = try request.pathID("id", context, as: PaymentID.self)
            let payment = try await payments.call(PaymentsAPI.getPayment, ResourceRef(id: id), options: options)
            return try JSONBody.response(payment, version: payment.version)
        }
        v1.post("payments/:id/confirm") { request, context in
            let options = try context.callOptions(request)
            let id = try request.pathID("id", context, as: PaymentID.self)
            let body = try await JSONBody.decode(CashTendered.self, from: request, context: context)
            let payment = try await payments.call(
                PaymentsAPI.confirmCash, CashConfirmation(paymentID: id, amountTendered: body.amountTendered),
                options: options)
            return try JSONBody.response(payment, version: payment.version)
        }
        v1.post("payments/:id/cancel") { request, context in
            let options = try context.callOptions(request)
            let id = try request.pathID("id", context, as: PaymentID.self)
            let payment = try await payments.call(PaymentsAPI.cancelPayment, ResourceRef(id: id), options: options)
            return try JSONBody.response(payment, version: payment.version)
        }
        v1.post("payments/:id/refunds") { request, context in
            let options = try context.callOptions(request)
            let id = try request.pathID("id", context, as: PaymentID.self)
            let body = try await JSONBody.decode(RefundBody.self, from: request, context: context)
            let refund = try await payments.call(
                PaymentsAPI.refund,
                RefundRequest(paymentID: id, amount: body.amount, reason: body.reason, restockLines: body.restockLines),
                options: options)
            return try JSONBody.response(refund, status: .created)
        }
        v1.get("stores/:id/payments") { request, context in
            let options = try context.callOptions(request)
            let store = try request.pathID("id", context, as: StoreID.self)
            var query = QueryReader(request)
            let list = PaymentListRequest(
                storeID: store, statuses: query.choices("status", as: PaymentStatus.self),
                methods: query.choices("method", as: PaymentMethod.self),
                staffID: query.id("staff_id", as: UserID.self),
                from: query.date("from"), to: query.date("to"), page: query.page())
            try query.check()
            return try JSONBody.response(try await payments.call(PaymentsAPI.listPayments, list, options: options))
        }
        v1.get("stores/:id/receipts") { request, context in
            let options = try context.callOptions(request)
            let store = try request.pathID("id", context, as: StoreID.self)
            var query = QueryReader(request)
            let list = ReceiptListRequest(
                storeID: store, number: query.int("number", in: 1...Int.max).map(Int64.init), page: query.page())
            try query.check()
            return try JSONBody.response(try await payments.call(PaymentsAPI.listReceipts, list, options: options))
        }
        v1.post("shifts/clock-in") { request, context in
            let options = try context.callOptions(request)
            let body = try await JSONBody.decode(ClockRequest.self, from: request, context: context)
            return try JSONBody.response(
                try await payments.call(PaymentsAPI.clockIn, body, options: options), status: .created)
        }
        v1.post("shifts/clock-out") { request, context in
            let options = try context.callOptions(request)
            let body = try await JSONBody.decode(ClockRequest.self, from: request, context: context)
            return try JSONBody.response(try await payments.call(PaymentsAPI.clockOut, body, options: options))
        }
        v1.get("stores/:id/shifts") { request, context in
            let options = try context.callOptions(request)
            let store = try request.pathID("id", context, as: StoreID.self)
            var query = QueryReader(request)
            let list = ShiftListRequest(
                storeID: store, userID: query.id("user_id", as: UserID.self), open: query.bool("open"),
                page: query.page())
            try query.check()
            return try JSONBody.response(try await payments.call(PaymentsAPI.listShifts, list, options: options))
        }
        v1.get("stores/:id/stats") { request, context in
            let options = try context.callOptions(request)
            let store = try request.pathID("id", context, as: StoreID.self)
            let query = QueryReader(request)
            let stats = StatsRequest(storeID: store, from: query.text("from"), to: query.text("to"))
            return try JSONBody.response(try await payments.call(PaymentsAPI.stats, stats, options: options))
        }
        v1.get("receipts/:id") { request, context in
            let receipt = try await receipt(request, context)
            let wantsText = request.headers[.accept].map { $0.contains("text/plain") && !$0.contains("json") } ?? false
            return wantsText ? Self.text(receipt) : try JSONBody.response(receipt)
        }
        v1.get("receipts/:id/text") { request, context in
            Self.text(try await receipt(request, context))
        }
    }

    private func receipt(_ request: Request, _ context: GatewayContext) async throws -> Receipt {
        let options = try context.callOptions(request)
        let id = try request.pathID("id", context, as: ReceiptID.self)
        return try await payments.call(PaymentsAPI.getReceipt, ResourceRef(id: id), options: options)
    }

    /// A receipt as plain text, for the printer.
    private static func text(_ receipt: Receipt) -> Response {
        Response(
            status: .ok, headers: [.contentType: "text/plain; charset=utf-8"],
            body: ResponseBody(byteBuffer: ByteBuffer(string: receipt.text + "\n")))
    }
}

/// The body of `POST /v1/payments/{id}/confirm`.
private struct CashTendered: Decodable {
    var amountTendered: Int64?

    enum CodingKeys: String, CodingKey { case amountTendered = "amount_tendered" }
}

/// The body of `POST /v1/payments/{id}/refunds`.
private struct RefundBody: Decodable {
    var amount: Int64?
    var reason: String?
    var restockLines: [Reservation.Line]?

    enum CodingKeys: String, CodingKey {
        case amount, reason
        case restockLines = "restock_lines"
    }
}
