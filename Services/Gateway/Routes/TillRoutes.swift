import Contracts
import Domain
import HTTPTypes
import Hummingbird
import Runtime

/// Shared tills: `/v1/stores/{id}/tills`, `/v1/tills/{id}`, `/v1/users/{id}/pin`, and the sign-in
/// by PIN, `POST /v1/auth/pin`, which carries the till's token as `X-Till-Token`.
struct TillRoutes: Sendable {
    let tills: TillsHandlers
    let clients: ClientAddressResolver

    func add(to v1: RouterGroup<GatewayContext>) {
        v1.post("stores/:id/tills", use: signedIn(register))
            .get("stores/:id/tills", use: signedIn(list))
            .delete("tills/:id", use: signedIn(revoke))
            .put("users/:id/pin", use: signedIn(setPIN))
            .delete("users/:id/pin", use: signedIn(clearPIN))
            .post("auth/pin", use: signIn)
    }

    /// The header a till sends its token in.
    static let tokenHeader = HTTPField.Name("X-Till-Token")!

    @Sendable func register(_ request: SignedInRequest) async throws -> Response {
        let draft = try await request.decode(TillDraft.self)
        let registered = try await tills.register(
            draft, in: try request.id(as: StoreID.self), by: request.principal)
        return try JSONBody.response(registered, status: .created)
    }

    @Sendable func list(_ request: SignedInRequest) async throws -> Response {
        let found = try await tills.list(of: try request.id(as: StoreID.self), by: request.principal)
        return try JSONBody.response(Page(data: found, nextCursor: nil))
    }

    @Sendable func revoke(_ request: SignedInRequest) async throws -> Response {
        try JSONBody.response(try await tills.revoke(try request.id(as: TillID.self), by: request.principal))
    }

    @Sendable func setPIN(_ request: SignedInRequest) async throws -> Response {
        let change = try await request.decode(PINChange.self)
        try await tills.setPIN(change, of: try request.id(as: UserID.self), by: request.principal)
        return Response(status: .noContent)
    }

    @Sendable func clearPIN(_ request: SignedInRequest) async throws -> Response {
        try await tills.setPIN(nil, of: try request.id(as: UserID.self), by: request.principal)
        return Response(status: .noContent)
    }

    @Sendable func signIn(_ request: Request, context: GatewayContext) async throws -> Response {
        let body = try await JSONBody.decode(PINSignIn.self, from: request, context: context)
        let address = clients.client(peer: context.clientAddress, forwardedFor: request.headers[values: .xForwardedFor])
        let pair = try await tills.signIn(
            body, tillToken: request.headers[Self.tokenHeader],
            client: SessionClient(device: request.headers[.userAgent], address: address))
        return try JSONBody.response(pair)
    }
}
