import Contracts
import Domain
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import Wire

/// `/v1/payments…`, `/v1/receipts…`, `/v1/shifts…` and a store's payments, receipts, shifts and
/// statistics, forwarded to the payments service.
struct PaymentRoutes: Sendable {
    let payments: any WireCaller

    func add(to v1: RouterGroup<GatewayContext>) {
        v1.post("payments", use: signedIn(create))
            .post("payments/provider-events", use: providerEvent)
            .get("payments/:id", use: signedIn(get))
            .post("payments/:id/confirm", use: signedIn(confirm))
            .post("payments/:id/cancel", use: signedIn(cancel))
            .post("payments/:id/refunds", use: signedIn(refund))
            .get("stores/:id/payments", use: signedIn(list))
            .get("stores/:id/payments/changes", use: signedIn(changes))
            .get("stores/:id/receipts", use: signedIn(receipts))
            .post("shifts/clock-in", use: signedIn(clockIn))
            .post("shifts/clock-out", use: signedIn(clockOut))
            .get("stores/:id/shifts", use: signedIn(shifts))
            .get("stores/:id/shifts/summary", use: signedIn(shiftSummary))
            .get("stores/:id/stats", use: signedIn(stats))
            .get("receipts/:id", use: signedIn(receipt))
            .get("receipts/:id/text", use: signedIn(receiptText))
    }

    @Sendable func create(_ request: SignedInRequest) async throws -> Response {
        let draft = try await request.decode(PaymentDraft.self)
        let payment = try await payments.call(PaymentsAPI.createPayment, draft, options: request.options)
        return try JSONBody.response(payment, status: .created, version: payment.version)
    }

    /// A provider's report carries no token: its signature, checked by the payments service
    /// over the body exactly as sent, is its credential.
    @Sendable func providerEvent(_ request: Request, context: GatewayContext) async throws -> Response {
        let body = try await JSONBody.collect(request, context: context)
        let signed = SignedProviderEvent(body: String(buffer: body), signature: request.headers[.orderlySignature])
        let options = WireCallOptions(trace: context.forwardedTrace)
        return try JSONBody.response(try await payments.call(PaymentsAPI.providerEvent, signed, options: options))
    }

    @Sendable func get(_ request: SignedInRequest) async throws -> Response {
        let payment = try await payments.call(PaymentsAPI.getPayment, try Self.ref(request), options: request.options)
        return try JSONBody.response(payment, version: payment.version)
    }

    @Sendable func confirm(_ request: SignedInRequest) async throws -> Response {
        let id = try request.id(as: PaymentID.self)
        let body = try await request.decode(CashTendered.self)
        let payment = try await payments.call(
            PaymentsAPI.confirmCash, CashConfirmation(paymentID: id, amountTendered: body.amountTendered),
            options: request.options)
        return try JSONBody.response(payment, version: payment.version)
    }

    @Sendable func cancel(_ request: SignedInRequest) async throws -> Response {
        let payment = try await payments.call(
            PaymentsAPI.cancelPayment, try Self.ref(request), options: request.options)
        return try JSONBody.response(payment, version: payment.version)
    }

    @Sendable func refund(_ request: SignedInRequest) async throws -> Response {
        let id = try request.id(as: PaymentID.self)
        let body = try await request.decode(RefundBody.self)
        let refund = try await payments.call(
            PaymentsAPI.refund,
            RefundRequest(paymentID: id, amount: body.amount, reason: body.reason, restockLines: body.restockLines),
            options: request.options)
        return try JSONBody.response(refund, status: .created)
    }

    @Sendable func list(_ request: SignedInRequest) async throws -> Response {
        let store = try request.id(as: StoreID.self)
        var query = request.query
        let list = PaymentListRequest(
            storeID: store, statuses: query.choices("status", as: PaymentStatus.self),
            methods: query.choices("method", as: PaymentMethod.self), staffID: query.id("staff_id", as: UserID.self),
            from: query.date("from"), to: query.date("to"), page: query.page())
        try query.check()
        return try JSONBody.response(try await payments.call(PaymentsAPI.listPayments, list, options: request.options))
    }

    /// The change feed; the payments service decides whether `since` is one of its cursors.
    @Sendable func changes(_ request: SignedInRequest) async throws -> Response {
        var query = request.query
        let changes = PaymentChangesRequest(
            storeID: try request.id(as: StoreID.self), since: query.text("since") ?? "",
            limit: query.int("limit", in: 1...1000))
        try query.check()
        return try JSONBody.response(
            try await payments.call(PaymentsAPI.paymentChanges, changes, options: request.options))
    }

    @Sendable func receipts(_ request: SignedInRequest) async throws -> Response {
        let store = try request.id(as: StoreID.self)
        var query = request.query
        let list = ReceiptListRequest(
            storeID: store, number: query.int("number", in: 1...Int.max).map(Int64.init), page: query.page())
        try query.check()
        return try JSONBody.response(try await payments.call(PaymentsAPI.listReceipts, list, options: request.options))
    }

    @Sendable func clockIn(_ request: SignedInRequest) async throws -> Response {
        let body = try await request.decode(ClockRequest.self)
        return try JSONBody.response(
            try await payments.call(PaymentsAPI.clockIn, body, options: request.options), status: .created)
    }

    @Sendable func clockOut(_ request: SignedInRequest) async throws -> Response {
        let body = try await request.decode(ClockRequest.self)
        return try JSONBody.response(try await payments.call(PaymentsAPI.clockOut, body, options: request.options))
    }

    @Sendable func shifts(_ request: SignedInRequest) async throws -> Response {
        let store = try request.id(as: StoreID.self)
        var query = request.query
        let list = ShiftListRequest(
            storeID: store, userID: query.id("user_id", as: UserID.self), open: query.bool("open"), page: query.page())
        try query.check()
        return try JSONBody.response(try await payments.call(PaymentsAPI.listShifts, list, options: request.options))
    }

    @Sendable func stats(_ request: SignedInRequest) async throws -> Response {
        try JSONBody.response(
            try await payments.call(PaymentsAPI.stats, try Self.days(request), options: request.options))
    }

    @Sendable func shiftSummary(_ request: SignedInRequest) async throws -> Response {
        try JSONBody.response(
            try await payments.call(PaymentsAPI.shiftSummary, try Self.days(request), options: request.options))
    }

    /// The store and days in the path and query.
    private static func days(_ request: SignedInRequest) throws(OrderlyError) -> StatsRequest {
        let query = request.query
        return StatsRequest(storeID: try request.id(as: StoreID.self), from: query.text("from"), to: query.text("to"))
    }

    /// A receipt as JSON, or as plain text when the client asks for text only.
    @Sendable func receipt(_ request: SignedInRequest) async throws -> Response {
        let receipt = try await payments.call(
            PaymentsAPI.getReceipt, ResourceRef(id: try request.id(as: ReceiptID.self)), options: request.options)
        let accept = request.request.headers[.accept]
        let wantsText = accept.map { $0.contains("text/plain") && !$0.contains("json") } ?? false
        return wantsText ? Self.text(receipt) : try JSONBody.response(receipt)
    }

    @Sendable func receiptText(_ request: SignedInRequest) async throws -> Response {
        Self.text(
            try await payments.call(
                PaymentsAPI.getReceipt, ResourceRef(id: try request.id(as: ReceiptID.self)), options: request.options))
    }

    /// The payment in the path.
    private static func ref(_ request: SignedInRequest) throws(OrderlyError) -> ResourceRef<PaymentID> {
        ResourceRef(id: try request.id(as: PaymentID.self))
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
