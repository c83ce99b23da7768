import Contracts
import Domain
import Foundation
import Hummingbird
import Logging
import Wire

/// `/v1/me`, `/v1/users…` and `/v1/couriers/me/availability`: the users the gateway owns, read
/// with whether they are clocked in (`is_clocked_in`, `clocked_in_at`), which the payments
/// service's shifts say.
struct UserRoutes: Sendable {
    let identity: UsersHandlers
    let verifications: EmailVerificationHandlers
    let account: AccountHandlers
    let sessions: SessionHandlers
    let payments: any WireCaller
    /// Who the client is, for the login limit a check of one's current password counts against.
    let clients: ClientAddressResolver
    let logger: Logger

    func add(to v1: RouterGroup<GatewayContext>) {
        v1.get("me", use: signedIn(me))
            .delete("me", use: signedIn(closeAccount))
            .get("me/export", use: signedIn(export))
            .get("me/sessions", use: signedIn(listSessions))
            .delete("me/sessions", use: signedIn(endSessions))
            .delete("me/sessions/:id", use: signedIn(endSession))
            .post("me/verification", use: signedIn(resendVerification))
            .post("users", use: signedIn(create))
            .get("users", use: signedIn(list))
            .get("users/:id", use: signedIn(get))
            .patch("users/:id", use: signedIn(update))
            .put("couriers/me/availability", use: signedIn(setAvailability))
            .get("stores/:id/staff", use: signedIn(colleagues))
    }

    @Sendable func me(_ request: SignedInRequest) async throws -> Response {
        let user = try await identity.me(request.principal)
        return try JSONBody.response(try await clockStates(of: [user], request).first ?? user, version: user.version)
    }

    @Sendable func endSessions(_ request: SignedInRequest) async throws -> Response {
        try await identity.endSessions(of: request.principal)
        return Response(status: .noContent)
    }

    @Sendable func listSessions(_ request: SignedInRequest) async throws -> Response {
        let listed = try await sessions.list(by: request.principal, current: request.context.session)
        return try JSONBody.response(Page(data: listed, nextCursor: nil))
    }

    @Sendable func endSession(_ request: SignedInRequest) async throws -> Response {
        guard let id = request.context.parameters.get("id") else {
            throw OrderlyError(.notFound, "no such session")
        }
        try await sessions.end(id, by: request.principal)
        return Response(status: .noContent)
    }

    @Sendable func closeAccount(_ request: SignedInRequest) async throws -> Response {
        let closure = try await request.decode(AccountClosure.self)
        let client = clients.client(
            peer: request.context.clientAddress, forwardedFor: request.request.headers[values: .xForwardedFor])
        try await account.close(closure, by: request.principal, address: client)
        return Response(status: .noContent)
    }

    @Sendable func export(_ request: SignedInRequest) async throws -> Response {
        var response = try JSONBody.response(try await account.export(by: request.principal))
        response.headers[.contentDisposition] = "attachment; filename=\"orderly-export.json\""
        return response
    }

    @Sendable func resendVerification(_ request: SignedInRequest) async throws -> Response {
        try await verifications.resend(by: request.principal)
        return Response(status: .accepted)
    }

    @Sendable func create(_ request: SignedInRequest) async throws -> Response {
        let draft = try await request.decode(UserDraft.self)
        let user = try await identity.create(
            draft, by: request.principal, idempotencyKey: request.request.headers[.idempotencyKey])
        return try JSONBody.response(user, status: .created, version: user.version)
    }

    @Sendable func list(_ request: SignedInRequest) async throws -> Response {
        var query = request.query
        let store = query.id("store_id", as: StoreID.self)
        let role = query.choices("role", as: Role.self)
        if let role, role.count != 1 { query.problems.add("role", "must be a single role") }
        let page = query.page()
        try query.check()
        var users = try await identity.list(store: store, role: role?.first, page: page, by: request.principal)
        users.data = try await clockStates(of: users.data, request)
        return try JSONBody.response(users)
    }

    /// The store's users as its shared clock-in screen shows them.
    @Sendable func colleagues(_ request: SignedInRequest) async throws -> Response {
        let users = try await identity.colleagues(
            of: try request.id(as: StoreID.self), page: try request.page(), by: request.principal)
        let shown = try await clockStates(of: users.data, request).map(Colleague.init)
        return try JSONBody.response(users.replacing(data: shown))
    }

    @Sendable func get(_ request: SignedInRequest) async throws -> Response {
        let user = try await identity.get(try request.id(as: UserID.self), by: request.principal)
        return try JSONBody.response(try await clockStates(of: [user], request).first ?? user, version: user.version)
    }

    @Sendable func update(_ request: SignedInRequest) async throws -> Response {
        let id = try request.id(as: UserID.self)
        let patch = try await request.decode(UserPatch.self)
        let client = clients.client(
            peer: request.context.clientAddress, forwardedFor: request.request.headers[values: .xForwardedFor])
        let user = try await identity.update(
            id, patch, expectedVersion: try request.request.expectedVersion() ?? patch.expectedVersion,
            by: request.principal, address: client)
        return try JSONBody.response(user, version: user.version)
    }

    @Sendable func setAvailability(_ request: SignedInRequest) async throws -> Response {
        let availability = try await request.decode(AvailabilityRequest.self)
        let user = try await identity.setAvailability(availability, by: request.principal)
        return try JSONBody.response(user, version: user.version)
    }

    /// `users` with whether each store user is clocked in. Should the payments service not
    /// answer, the users go without the two fields rather than the read failing.
    private func clockStates(of users: [User], _ request: SignedInRequest) async throws -> [User] {
        let staff = users.filter(\.role.isStoreRole).map(\.id)
        guard !staff.isEmpty else { return users }
        let open: [Shift]
        do {
            open = try await payments.call(
                PaymentsAPI.openShifts, OpenShiftsRequest(userIDs: staff),
                options: WireCallOptions(trace: request.context.forwardedTrace))
        } catch {
            logger.warning("clock-in states unavailable", metadata: ["error": "\(error)"])
            return users
        }
        let clockedIn = Dictionary(open.map { ($0.userID, $0.clockedInAt) }, uniquingKeysWith: { first, _ in first })
        return users.map { user in
            guard user.role.isStoreRole else { return user }
            var user = user
            user.clockedInAt = clockedIn[user.id]
            user.isClockedIn = user.clockedInAt != nil
            return user
        }
    }
}

/// A store user as the store's shared clock-in screen shows them to a colleague: who they are
/// and whether they are clocked in, nothing of how to reach them.
struct Colleague: Codable, Sendable {
    var id: UserID
    var name: String
    var role: Role
    var staffRole: StaffRole?
    var photoURL: String?
    var active: Bool
    var isClockedIn: Bool?
    var clockedInAt: Date?

    init(_ user: User) {
        id = user.id
        name = user.name
        role = user.role
        staffRole = user.staffRole
        photoURL = user.photoURL
        active = user.active
        isClockedIn = user.isClockedIn
        clockedInAt = user.clockedInAt
    }

    enum CodingKeys: String, CodingKey {
        case id, name, role, active
        case staffRole = "staff_role"
        case photoURL = "photo_url"
        case isClockedIn = "is_clocked_in"
        case clockedInAt = "clocked_in_at"
    }
}
