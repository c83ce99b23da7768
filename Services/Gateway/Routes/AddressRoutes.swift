import Contracts
import Domain
import Hummingbird

/// `/v1/me/addresses…`: a customer's delivery addresses.
struct AddressRoutes: Sendable {
    let addresses: AddressesHandlers

    func add(to v1: RouterGroup<GatewayContext>) {
        v1.get("me/addresses", use: signedIn(list))
            .post("me/addresses", use: signedIn(create))
            .patch("me/addresses/:id", use: signedIn(update))
            .delete("me/addresses/:id", use: signedIn(delete))
    }

    @Sendable func list(_ request: SignedInRequest) async throws -> Response {
        try JSONBody.response(Page(data: try await addresses.list(by: request.principal), nextCursor: nil))
    }

    @Sendable func create(_ request: SignedInRequest) async throws -> Response {
        let address = try await addresses.create(
            try await request.decode(AddressFields.self), by: request.principal,
            idempotencyKey: request.request.headers[.idempotencyKey])
        return try JSONBody.response(address, status: .created, version: address.version)
    }

    @Sendable func update(_ request: SignedInRequest) async throws -> Response {
        let address = try await addresses.update(
            try request.id(as: AddressID.self), try await request.decode(AddressFields.self),
            expectedVersion: try request.request.expectedVersion(), by: request.principal)
        return try JSONBody.response(address, version: address.version)
    }

    @Sendable func delete(_ request: SignedInRequest) async throws -> Response {
        try await addresses.delete(try request.id(as: AddressID.self), by: request.principal)
        return Response(status: .noContent)
    }
}
