import HTTPTypes
import Hummingbird
import Synchronization

/// Answers a request whose path is a route but whose method is not one of the route's with 405
/// and `Allow` listing the route's methods, instead of the router's 404 (RFC 9110 §15.5.6).
/// The routes are read from the router once it is complete (`load(from:)`).
final class MethodNotAllowed: Sendable {
    /// Each route as its path segments (`{id}` matching any one segment) and its methods.
    private let table = Mutex<[(segments: [Substring], methods: [String])]>([])

    func load(from router: Router<GatewayContext>) {
        var routes: [String: [String]] = [:]
        for route in router.routes { routes["\(route.path)", default: []].append(route.method.rawValue) }
        table.withLock { table in
            table = routes.map { path, methods in (path.split(separator: "/"), methods.sorted()) }
        }
    }

    /// The methods of the route `path` is on; empty when it is on none. A literal segment wins
    /// over a capture, as in the router (`/v1/orders/changes` over `/v1/orders/{id}`).
    func methods(for path: String) -> [String] {
        let parts = path.split(separator: "?", maxSplits: 1).first.map { $0.split(separator: "/") } ?? []
        return table.withLock { table in
            table.filter { route in
                route.segments.count == parts.count
                    && zip(route.segments, parts).allSatisfy { $0.hasPrefix("{") || $0 == $1 }
            }.min { captures($0.segments) < captures($1.segments) }?.methods ?? []
        }
    }

    private func captures(_ segments: [Substring]) -> Int { segments.filter { $0.hasPrefix("{") }.count }

    struct Middleware: RouterMiddleware {
        typealias Context = GatewayContext
        let routes: MethodNotAllowed

        func handle(
            _ request: Request, context: GatewayContext, next: (Request, GatewayContext) async throws -> Response
        ) async throws -> Response {
            do {
                return try await next(request, context)
            } catch let error as HTTPError where error.status == .notFound {
                let allowed = routes.methods(for: request.uri.path)
                guard !allowed.isEmpty else { throw error }
                throw HTTPError(.methodNotAllowed, headers: [.allow: allowed.joined(separator: ", ")])
            }
        }
    }
}
