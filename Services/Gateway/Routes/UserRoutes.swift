import Contracts
import Domain
import Hummingbird
import Logging
import Wire

/// `/v1/me`, `/v1/users…` and `/v1/couriers/me/availability`: the users the gateway owns, read
/// with whether they are clocked in (`is_clocked_in`, `clocked_in_at`), which the payments
/// service's shifts say.
struct UserRoutes: Sendable {
    let identity: UsersHandlers
    let payments: any WireCaller
    let logger: Logger

    func add(to v1: RouterGroup<GatewayContext>) {
        v1.get("me") { request, context in
            let user = try await identity.me(try context.principal())
            return try JSONBody.response(
                try await clockStates(of: [user], request).first ?? user, version: user.version)
        }
        v1.post("users") { request, context in
            let caller = try context.principal()
            let draft = try await JSONBody.decode(UserDraft.self, from: request, context: context)
            let user = try await identity.create(draft, by: caller, idempotencyKey: request.headers[.idempotencyKey])
            return try JSONBody.response(user, status: .created, version: user.version)
        }
        v1.get("users") { request, context in
            let caller = try context.principal()
            var query = QueryReader(request)
            let store = query.id("store_id", as: StoreID.self)
            let role = query.choices("role", as: Role.self)
            if let role, role.count != 1 { query.problems.add("role", "must be a single role") }
            let page = query.page()
            try query.check()
            var users = try await identity.list(store: store, role: role?.first, page: page, by: caller)
            users.data = try await clockStates(of: users.data, request)
            return try JSONBody.response(users)
        }
        v1.get("users/:id") { request, context in
            let user = try await identity.get(
                try request.pathID("id", context, as: UserID.self), by: try context.principal())
            return try JSONBody.response(
                try await clockStates(of: [user], request).first ?? user, version: user.version)
        }
        v1.patch("users/:id") { request, context in
            let caller = try context.principal()
            let id = try request.pathID("id", context, as: UserID.self)
            let patch = try await JSONBody.decode(UserPatch.self, from: request, context: context)
            let user = try await identity.update(
                id, patch, expectedVersion: try request.expectedVersion() ?? patch.expectedVersion, by: caller)
            return try JSONBody.response(user, version: user.version)
        }
        v1.put("couriers/me/availability") { request, context in
            let caller = try context.principal()
            let availability = try await JSONBody.decode(AvailabilityRequest.self, from: request, context: context)
            let user = try await identity.setAvailability(availability, by: caller)
            return try JSONBody.response(user, version: user.version)
        }
    }

    /// `users` with whether each store user is clocked in. Should the payments service not
    /// answer, the users go without the two fields rather than the read failing.
    private func clockStates(of users: [User], _ request: Request) async throws -> [User] {
        let staff = users.filter(\.role.isStoreRole).map(\.id)
        guard !staff.isEmpty else { return users }
        let open: [Shift]
        do {
            open = try await payments.call(
                PaymentsAPI.openShifts, OpenShiftsRequest(userIDs: staff),
                options: WireCallOptions(trace: request.traceParent))
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
