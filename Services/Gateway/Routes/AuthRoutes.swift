import Domain
import Hummingbird

/// `/v1/auth/…` and `/v1/me`: signing in and out, refreshing tokens, the caller's own record.
struct AuthRoutes: Sendable {
    let auth: AuthHandlers
    let clients: ClientAddressResolver

    func add(to v1: RouterGroup<GatewayContext>) {
        v1.post("auth/login") { request, context in
            let login = try await JSONBody.decode(LoginRequest.self, from: request, context: context)
            let client = clients.client(
                peer: context.clientAddress, forwardedFor: request.headers[values: .xForwardedFor])
            return try JSONBody.response(try await auth.login(login, address: client))
        }
        v1.post("auth/refresh") { request, context in
            let refresh = try await JSONBody.decode(RefreshRequest.self, from: request, context: context)
            return try JSONBody.response(try await auth.refresh(refresh))
        }
        v1.post("auth/logout") { request, context in
            let caller = try context.principal()
            let refresh = try await JSONBody.decode(RefreshRequest.self, from: request, context: context)
            try await auth.logout(refresh, by: caller)
            return Response(status: .noContent)
        }
    }
}
