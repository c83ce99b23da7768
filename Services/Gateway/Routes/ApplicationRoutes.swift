import Contracts
import Domain
import Hummingbird

/// `/v1/applications…`: restaurants and couriers apply without an account; the platform reads
/// and decides.
struct ApplicationRoutes: Sendable {
    let applications: ApplicationsHandlers
    let clients: ClientAddressResolver

    func add(to v1: RouterGroup<GatewayContext>) {
        v1.post("applications", use: apply)
            .get("applications", use: signedIn(list))
            .get("applications/:id", use: signedIn(get))
            .post("applications/:id/approve", use: signedIn(approve))
            .post("applications/:id/reject", use: signedIn(reject))
    }

    @Sendable func apply(_ request: Request, context: GatewayContext) async throws -> Response {
        let draft = try await JSONBody.decode(ApplicationDraft.self, from: request, context: context)
        let client = clients.client(peer: context.clientAddress, forwardedFor: request.headers[values: .xForwardedFor])
        let application = try await applications.apply(draft, address: client)
        return try JSONBody.response(
            ApplicationReceipt(id: application.id, status: application.status), status: .created)
    }

    @Sendable func list(_ request: SignedInRequest) async throws -> Response {
        var query = request.query
        let status = query.choices("status", as: JoinApplication.Status.self)
        if let status, status.count != 1 { query.problems.add("status", "must be a single status") }
        let page = query.page()
        try query.check()
        return try JSONBody.response(
            try await applications.list(status: status?.first, page: page, by: request.principal))
    }

    @Sendable func get(_ request: SignedInRequest) async throws -> Response {
        let application = try await applications.get(try request.id(as: ApplicationID.self), by: request.principal)
        return try JSONBody.response(application, version: application.version)
    }

    @Sendable func approve(_ request: SignedInRequest) async throws -> Response {
        let application = try await applications.approve(try request.id(as: ApplicationID.self), by: request.principal)
        return try JSONBody.response(application, version: application.version)
    }

    @Sendable func reject(_ request: SignedInRequest) async throws -> Response {
        let id = try request.id(as: ApplicationID.self)
        let application = try await applications.reject(
            id, try await request.decode(ApplicationRejection.self), by: request.principal)
        return try JSONBody.response(application, version: application.version)
    }
}

/// What an applicant is told: the application's id and status, nothing more.
struct ApplicationReceipt: Codable, Sendable {
    var id: ApplicationID
    var status: JoinApplication.Status
}
