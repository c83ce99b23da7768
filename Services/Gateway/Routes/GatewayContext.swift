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

    /// The Wire call options of a signed-in request: principal, trace, idempotency key.
    func callOptions(_ request: Request) throws(OrderlyError) -> WireCallOptions {
        WireCallOptions(
            principal: try principal(), trace: request.traceParent, idempotencyKey: request.headers[.idempotencyKey])
    }
}

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
                let (principal, version, expires) = try await tokens.verify(accessToken: token)
                try await sessions.check(principal, tokenVersion: version)
                context.caller = .success(principal)
                context.accessExpires = expires
            } catch {
                context.caller = .failure(error)
            }
        } else {
            context.caller = .failure(OrderlyError(.unauthenticated, "send Authorization: Bearer <access token>"))
        }
        return try await next(request, context)
    }
}

extension HTTPField.Name {
    static let requestID = Self("X-Request-Id")!
    static let idempotencyKey = Self("Idempotency-Key")!
    static let traceparent = Self("traceparent")!
    static let xForwardedFor = Self("X-Forwarded-For")!
}

/// Answers every failure with the error envelope
/// `{"error": {"code", "message", "details", "request_id"}}`, and stamps `X-Request-Id` on
/// every response. A client's own `X-Request-Id` (up to 64 letters, digits, `-`, `_`, `.`) is
/// kept. Unknown errors are logged with the request id and answered as `internal`. Also sets
/// the largest body a request may carry.
struct ErrorEnvelopeMiddleware: RouterMiddleware {
    typealias Context = GatewayContext
    let maximumBodyBytes: Int

    func handle(
        _ request: Request, context: GatewayContext, next: (Request, GatewayContext) async throws -> Response
    ) async throws -> Response {
        var context = context
        context.maxUploadSize = maximumBodyBytes
        if let given = request.headers[.requestID], Self.isAcceptableID(given) { context.requestID = given }
        var logger = context.logger
        logger[metadataKey: "request.id"] = "\(context.requestID)"
        context.logger = logger
        var response: Response
        do {
            response = try await next(request, context)
        } catch {
            response = Self.response(for: error, requestID: context.requestID, logger: logger)
        }
        response.headers[.requestID] = context.requestID
        return response
    }

    static func response(for error: any Error, requestID: String, logger: Logger) -> Response {
        let status: HTTPResponse.Status
        var failure: OrderlyError
        switch error {
        case let error as OrderlyError:
            failure = publicForm(of: error, logger: logger)
            status = HTTPResponse.Status(code: error.code.httpStatus)
        case is NIOTooManyBytesError:
            failure = OrderlyError(.invalidArgument, "the request body is too large", reason: "payload_too_large")
            status = .contentTooLarge
        case let error as any HTTPResponseError:
            status = error.status
            failure = OrderlyError(Self.code(for: status), Self.message(for: status))
        default:
            logger.error("request failed", metadata: ["error.type": "\(type(of: error))", "error": "\(error)"])
            failure = OrderlyError(.internal, "internal error")
            status = .internalServerError
        }
        if failure.code == .internal, error is OrderlyError {
            logger.error("upstream failed", metadata: ["error": "\(failure.message)"])
            failure.message = "internal error"
        }
        var headers: HTTPFields = [.contentType: "application/json"]
        if let error = error as? HTTPError { headers.append(contentsOf: error.headers) }
        if case .int(let seconds) = failure.details?["retry_after_seconds"] { headers[.retryAfter] = "\(seconds)" }
        return Response(
            status: status, headers: headers,
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: ErrorEnvelope.encode(failure, requestID: requestID))))
    }

    /// The error as the public sees it. A service out of reach is described by hosts and
    /// addresses the public has no business knowing: they go to the log, and the caller gets the
    /// code and a plain word.
    static func publicForm(of error: OrderlyError, logger: Logger) -> OrderlyError {
        guard error.code == .unavailable || error.code == .deadlineExceeded else { return error }
        logger.warning("upstream did not answer", metadata: ["error": "\(error.message)"])
        var plain = error
        plain.message =
            error.code == .unavailable
            ? "a service is unavailable for a moment; retry shortly" : "the request took too long; retry"
        plain.details = nil
        return plain
    }

    static func code(for status: HTTPResponse.Status) -> ErrorCode {
        switch status.code {
        case 400, 413, 415: return .invalidArgument
        case 401: return .unauthenticated
        case 403: return .permissionDenied
        case 404, 405: return .notFound
        case 409: return .conflict
        case 429: return .resourceExhausted
        case 501: return .unimplemented
        case 503: return .unavailable
        case 504: return .deadlineExceeded
        default: return status.code < 500 ? .invalidArgument : .internal
        }
    }

    static func message(for status: HTTPResponse.Status) -> String {
        switch status.code {
        case 404: return "no such route"
        case 405: return "this route does not take that method"
        default: return status.reasonPhrase
        }
    }

    static func isAcceptableID(_ text: String) -> Bool {
        (1...64).contains(text.utf8.count)
            && text.utf8.allSatisfy { byte in
                (48...57).contains(byte) || (65...90).contains(byte) || (97...122).contains(byte)
                    || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ".")
            }
    }
}

/// The JSON of an error answer.
enum ErrorEnvelope {
    private struct Body: Encodable {
        var error: Content
    }

    private struct Content: Encodable {
        var code: String
        var reason: String?
        var message: String
        var details: [String: JSONValue]
        var requestID: String

        enum CodingKeys: String, CodingKey {
            case code, reason, message, details
            case requestID = "request_id"
        }
    }

    static func encode(_ error: OrderlyError, requestID: String) -> Data {
        let body = Body(
            error: Content(
                code: error.code.rawValue, reason: error.reason, message: error.message, details: error.details ?? [:],
                requestID: requestID))
        return (try? JSONEncoder().encode(body)) ?? Data(#"{"error":{"code":"internal"}}"#.utf8)
    }
}
