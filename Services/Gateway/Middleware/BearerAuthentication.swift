import Domain
import Hummingbird

/// Reads the bearer token of every request that carries one, and checks that its session has
/// not ended (`Sessions`). Routes that need a caller ask
/// the context (`GatewayContext.principal()`), so a stale token sent along to the login or
/// refresh routes does no harm.
struct BearerAuthentication: RouterMiddleware {
    typealias Context = GatewayContext
    let tokens: TokenIssuer
    let sessions: Sessions

    func handle(
        _ request: Request, context: GatewayContext, next: (Request, GatewayContext) async throws -> Response
    ) async throws -> Response {
        guard let header = request.headers[.authorization] else { return try await next(request, context) }
        var context = context
        if header.utf8.count > 7, header.prefix(7).lowercased() == "bearer " {
            let token = String(header.dropFirst(7))
            do {
                let verified = try await tokens.verify(accessToken: token)
                try await sessions.check(
                    verified.principal, tokenVersion: verified.tokenVersion, session: verified.session)
                context.caller = .success(verified.principal)
                context.accessExpires = verified.expires
                context.tokenVersion = verified.tokenVersion
                context.session = verified.session
            } catch {
                context.caller = .failure(error)
            }
        } else {
            context.caller = .failure(OrderlyError(.unauthenticated, "send Authorization: Bearer <access token>"))
        }
        return try await next(request, context)
    }
}
