import Contracts
import Domain
import Hummingbird

/// `/v1/users…` and `/v1/couriers/me/availability`: the users the gateway owns.
struct UserRoutes: Sendable {
    let identity: GatewayHandlers

    func add(to v1: RouterGroup<GatewayContext>) {
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
            return try JSONBody.response(
                try await identity.list(store: store, role: role?.first, page: page, by: caller))
        }
        v1.get("users/:id") { request, context in
            let user = try await identity.get(
                try request.pathID("id", context, as: UserID.self), by: try context.principal())
            return try JSONBody.response(user, version: user.version)
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
}
