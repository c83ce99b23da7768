import Contracts
import Domain
import Foundation
import Hummingbird
import Wire

/// A store's and a courier's balances, with the ledger entries that moved them, and payouts
/// recorded against them, forwarded to the payments service, which keeps the ledger. A courier
/// named by id must be a courier's account (404 otherwise), which only the gateway knows.
struct LedgerRoutes: Sendable {
    let payments: any WireCaller
    let identity: UsersHandlers

    func add(to v1: RouterGroup<GatewayContext>) {
        v1.get("stores/:id/balance", use: signedIn(storeBalance))
            .post("stores/:id/payouts", use: signedIn(storePayout))
            .get("couriers/me/balance", use: signedIn(ownBalance))
            .get("couriers/:id/balance", use: signedIn(courierBalance))
            .post("couriers/:id/payouts", use: signedIn(courierPayout))
    }

    @Sendable func storeBalance(_ request: SignedInRequest) async throws -> Response {
        try await balance(BalanceRequest(storeID: try request.id(as: StoreID.self), page: try request.page()), request)
    }

    @Sendable func ownBalance(_ request: SignedInRequest) async throws -> Response {
        guard request.principal.role == .courier else {
            throw OrderlyError(.permissionDenied, "only couriers have a balance of their own here")
        }
        return try await balance(BalanceRequest(courierID: request.principal.userID, page: try request.page()), request)
    }

    @Sendable func courierBalance(_ request: SignedInRequest) async throws -> Response {
        let courier = try await self.courier(request)
        return try await balance(BalanceRequest(courierID: courier, page: try request.page()), request)
    }

    @Sendable func storePayout(_ request: SignedInRequest) async throws -> Response {
        let store = try request.id(as: StoreID.self)
        return try await payout(
            PayoutRequest(storeID: store, payout: try await request.decode(PayoutDraft.self)), request)
    }

    @Sendable func courierPayout(_ request: SignedInRequest) async throws -> Response {
        let courier = try await self.courier(request)
        return try await payout(
            PayoutRequest(courierID: courier, payout: try await request.decode(PayoutDraft.self)), request)
    }

    private func balance(_ body: BalanceRequest, _ request: SignedInRequest) async throws -> Response {
        try JSONBody.response(try await payments.call(PaymentsAPI.balance, body, options: request.options))
    }

    private func payout(_ body: PayoutRequest, _ request: SignedInRequest) async throws -> Response {
        let payout = try await payments.call(PaymentsAPI.recordPayout, body, options: request.options)
        return try JSONBody.response(payout, status: .created)
    }

    /// The courier in the path: an account that is a courier's, or 404.
    private func courier(_ request: SignedInRequest) async throws -> UserID {
        let id = try request.id(as: UserID.self)
        guard try await identity.role(of: id) == .courier else { throw OrderlyError(.notFound, "no courier \(id)") }
        return id
    }
}
