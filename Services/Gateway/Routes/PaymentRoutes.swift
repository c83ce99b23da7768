import Contracts
import Domain
import Hummingbird
import Wire

/// `/v1/payments…` and `/v1/receipts/{id}`, forwarded to the payments service.
struct PaymentRoutes: Sendable {
    let payments: any WireCaller

    func add(to v1: RouterGroup<GatewayContext>) {
        v1.post("payments") { request, context in
            let options = try context.callOptions(request)
            let draft = try await JSONBody.decode(PaymentDraft.self, from: request, context: context)
            let payment = try await payments.call(PaymentsAPI.recordPayment, draft, options: options)
            return try JSONBody.response(payment, status: .created)
        }
        v1.get("payments/:id") { request, context in
            let options = try context.callOptions(request)
            let id = try request.pathID("id", context, as: PaymentID.self)
            return try JSONBody.response(
                try await payments.call(PaymentsAPI.getPayment, ResourceRef(id: id), options: options))
        }
        v1.get("receipts/:id") { request, context in
            let options = try context.callOptions(request)
            let id = try request.pathID("id", context, as: ReceiptID.self)
            return try JSONBody.response(
                try await payments.call(PaymentsAPI.getReceipt, ResourceRef(id: id), options: options))
        }
    }
}
