import AsyncHTTPClient
import Contracts
import Domain
import Foundation
import NIOCore
import NIOHTTP1
import Runtime
import Synchronization

extension API {
    /// A payment provider's report that `payment` reached `type`, signed with its `secret` as
    /// `POST /v1/payments/provider-events` checks it.
    /// A provider's signed report on `payment`; `id` names the report, the same one again when it
    /// is sent again.
    func providerReport(
        _ payment: Payment, _ type: PaymentStatus?, provider: String, secret: String, id: String = UUID().uuidString
    ) async throws -> Reply {
        let event = ProviderEvent(
            id: id, provider: provider, paymentID: payment.id, type: type,
            providerRef: "ref-\(payment.id.description.prefix(8))", amount: payment.amount, currency: payment.currency,
            at: nil)
        let body = String(decoding: try API.encoder.encode(event), as: UTF8.self)
        var request = HTTPClientRequest(url: base + "/v1/payments/provider-events")
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.headers.add(
            name: OrderlySignature.headerName, value: OrderlySignature.header(body: body, secret: secret, at: Date()))
        request.body = .bytes(ByteBuffer(string: body))
        let response = try await http.execute(request, timeout: .seconds(60))
        return Reply(status: Int(response.status.code), body: try await response.body.collect(upTo: 1 << 20))
    }
}
