import Contracts
import Domain
import Hummingbird
import NIOCore
import Wire

/// A request of a signed-in caller, as a route's endpoint receives it: what every such route
/// starts from (the caller, and the Wire call options it forwards with), read once by
/// `signedIn(_:)`, with the path's ids, the query and the body read the same way everywhere.
struct SignedInRequest: Sendable {
    let request: Request
    let context: GatewayContext
    /// The caller, from the access token.
    var principal: Principal

    /// The options of the call forwarded to a service: the caller, the trace and the
    /// idempotency key.
    var options: WireCallOptions {
        WireCallOptions(
            principal: principal, trace: context.forwardedTrace, idempotencyKey: request.headers[.idempotencyKey])
    }

    /// The id in the path parameter `name`; a malformed one is a 404, as no such resource exists.
    func id<Tag>(_ name: String = "id", as type: Identifier<Tag>.Type) throws(OrderlyError) -> Identifier<Tag> {
        try request.pathID(name, context, as: type)
    }

    /// Throws when the caller's session has ended since the request began (a password change,
    /// deactivation): what holds a request open checks again before it reads more.
    func checkSession(_ sessions: Sessions) async throws(OrderlyError) {
        try await sessions.check(principal, tokenVersion: context.tokenVersion ?? -1, session: context.session)
    }

    /// The query's parameters, for a reader that collects every bad one.
    var query: QueryReader { QueryReader(request) }

    /// The page a list that takes nothing else asks for.
    func page() throws(OrderlyError) -> PageRequest { try QueryReader.page(request) }

    /// The body as `Value` (400 naming the field when it is not one).
    func decode<Value: Decodable>(_ type: Value.Type) async throws -> Value {
        try await JSONBody.decode(type, from: request, context: context)
    }

    /// The whole body, unread, to pass on as it came.
    func body() async throws -> ByteBuffer { try await JSONBody.collect(request, context: context) }

    /// A PATCH body for the resource `id`, with the version it is based on.
    func patch<ID, Changes>(_ id: ID, _ type: Changes.Type) async throws -> Patch<ID, Changes> {
        try await JSONBody.patch(request, context: context, id: id, type)
    }
}

/// An endpoint of the signed-in: a function from the request to the answer.
typealias SignedInEndpoint = @Sendable (SignedInRequest) async throws -> Response

/// The route handler of `endpoint`: refuses a request without a valid access token (401), then
/// hands the endpoint the caller's request. The prologue every signed-in route shares, once.
func signedIn(_ endpoint: @escaping SignedInEndpoint) -> @Sendable (Request, GatewayContext) async throws -> Response {
    { request, context in
        try await endpoint(SignedInRequest(request: request, context: context, principal: context.principal()))
    }
}

/// A request of a route open to visitors without an account too (stores and menus): the caller
/// when a valid access token names one, nil without a token. An invalid or expired token is
/// refused (401) rather than read as a visitor, so that a client whose session lapsed learns to
/// refresh it.
struct BrowsingRequest: Sendable {
    let request: Request
    let context: GatewayContext
    var principal: Principal?

    /// The options of the call forwarded to a service: the caller when signed in, and the trace.
    var options: WireCallOptions { WireCallOptions(principal: principal, trace: context.forwardedTrace) }

    /// The id in the path parameter `name`; a malformed one is a 404.
    func id<Tag>(_ name: String = "id", as type: Identifier<Tag>.Type) throws(OrderlyError) -> Identifier<Tag> {
        try request.pathID(name, context, as: type)
    }

    var query: QueryReader { QueryReader(request) }
}

/// The route handler of an endpoint open to visitors: a request with a token is the signed-in
/// caller's (refused with an invalid one), one without is a visitor's.
func browsing(_ endpoint: @escaping @Sendable (BrowsingRequest) async throws -> Response)
    -> @Sendable (Request, GatewayContext) async throws -> Response
{
    { request, context in
        let principal = try context.caller.map { result throws(OrderlyError) in try result.get() }
        return try await endpoint(BrowsingRequest(request: request, context: context, principal: principal))
    }
}
