import Contracts
import Domain
import Hummingbird
import Runtime

/// `/v1/auth/…`: signing up, in and out, refreshing tokens, resetting a forgotten password and
/// verifying an e-mail address.
struct AuthRoutes: Sendable {
    let auth: AuthHandlers
    let resets: PasswordResetHandlers
    let verifications: EmailVerificationHandlers
    let clients: ClientAddressResolver

    func add(to v1: RouterGroup<GatewayContext>) {
        v1.post("auth/register", use: register)
            .post("auth/login", use: login)
            .post("auth/refresh", use: refresh)
            .post("auth/logout", use: signedIn(logout))
            .post("auth/password-reset", use: requestPasswordReset)
            .post("auth/password-reset/confirm", use: confirmPasswordReset)
            .post("auth/verify-email", use: verifyEmail)
    }

    @Sendable func login(_ request: Request, context: GatewayContext) async throws -> Response {
        let login = try await JSONBody.decode(LoginRequest.self, from: request, context: context)
        let address = clients.client(peer: context.clientAddress, forwardedFor: request.headers[values: .xForwardedFor])
        return try JSONBody.response(
            try await auth.login(login, client: session(request, address), address: address))
    }

    @Sendable func register(_ request: Request, context: GatewayContext) async throws -> Response {
        let signUp = try await JSONBody.decode(SignUpRequest.self, from: request, context: context)
        let address = clients.client(peer: context.clientAddress, forwardedFor: request.headers[values: .xForwardedFor])
        let pair = try await auth.signUp(signUp, client: session(request, address), address: address)
        return try JSONBody.response(pair, status: .created)
    }

    @Sendable func refresh(_ request: Request, context: GatewayContext) async throws -> Response {
        let refresh = try await JSONBody.decode(RefreshRequest.self, from: request, context: context)
        let address = clients.client(peer: context.clientAddress, forwardedFor: request.headers[values: .xForwardedFor])
        return try JSONBody.response(try await auth.refresh(refresh, client: session(request, address)))
    }

    /// The device and network a session's tokens go to, as its owner will see them listed.
    private func session(_ request: Request, _ address: IPAddress?) -> SessionClient {
        SessionClient(device: request.headers[.userAgent], address: address)
    }

    @Sendable func logout(_ request: SignedInRequest) async throws -> Response {
        try await auth.logout(try await request.decode(RefreshRequest.self), by: request.principal)
        return Response(status: .noContent)
    }

    @Sendable func requestPasswordReset(_ request: Request, context: GatewayContext) async throws -> Response {
        let body = try await JSONBody.decode(PasswordResetRequest.self, from: request, context: context)
        let client = clients.client(peer: context.clientAddress, forwardedFor: request.headers[values: .xForwardedFor])
        try await resets.request(body, address: client)
        return Response(status: .accepted)
    }

    @Sendable func confirmPasswordReset(_ request: Request, context: GatewayContext) async throws -> Response {
        try await resets.confirm(
            try await JSONBody.decode(PasswordResetConfirmation.self, from: request, context: context))
        return Response(status: .noContent)
    }

    @Sendable func verifyEmail(_ request: Request, context: GatewayContext) async throws -> Response {
        try await verifications.verify(
            try await JSONBody.decode(EmailVerificationRequest.self, from: request, context: context))
        return Response(status: .noContent)
    }
}
