import Domain
import Foundation
import HTTPTypes
public import Hummingbird
import Logging
import NIOCore
import Wire

/// What the gateway knows about a request while handling it: its id (echoed as
/// `X-Request-Id`, and in every error), the client's address, the largest body it takes, and
/// who the caller is.
public struct GatewayContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    public var requestID: String
    /// The peer's IP address; behind a proxy, the proxy's (`ClientAddressResolver` looks
    /// further).
    public var clientAddress: String?
    /// Set from the settings by `ErrorEnvelopeMiddleware`.
    public var maxUploadSize: Int = 1 << 20
    /// The bearer token's principal, or why it is not valid; nil without a token.
    var caller: Result<Principal, OrderlyError>?
    /// When the bearer token expires, with a valid one.
    var accessExpires: Date?
    /// The token version the bearer token was issued under, with a valid one (`Sessions`).
    var tokenVersion: Int64?
    /// The session the bearer token was issued in, with a valid one that names it.
    var session: String?
    /// The `traceparent` the services are told with tracing off: a trusted proxy's, never a
    /// client's own (`EdgeTracingMiddleware`).
    var forwardedTrace: String?

    public init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.requestID = UUID.random().lowercasedText
        self.clientAddress = source.channel.remoteAddress?.ipAddress
    }

    /// The signed-in caller; `unauthenticated` without a valid access token.
    func principal() throws(OrderlyError) -> Principal {
        guard let caller else {
            throw OrderlyError(.unauthenticated, "sign in: send Authorization: Bearer <access token>")
        }
        return try caller.get()
    }
}
