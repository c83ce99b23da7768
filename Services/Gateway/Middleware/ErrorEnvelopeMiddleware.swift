import Domain
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import Wire

/// Answers every failure with the error envelope
/// `{"error": {"code", "message", "details", "request_id"}}`, and stamps `X-Request-Id` on
/// every response. A client's own `X-Request-Id` (up to 64 letters, digits, `-`, `_`, `.`) is
/// kept. Unknown errors are logged with the request id and answered as `internal`. The message
/// and the reasons beside fields are in the caller's language (`AnswerLanguage`: its
/// `Accept-Language`, else its token's locale, else English), named by `Content-Language`; the
/// code, the reason and the details' keys never change. Also sets the largest body a request may
/// carry.
struct ErrorEnvelopeMiddleware: RouterMiddleware {
    typealias Context = GatewayContext
    let maximumBodyBytes: Int
    /// Reads the locale of the caller's token, for an answer to a request that names no language.
    let tokens: TokenIssuer

    func handle(
        _ request: Request, context: GatewayContext, next: (Request, GatewayContext) async throws -> Response
    ) async throws -> Response {
        var context = context
        context.maxUploadSize = maximumBodyBytes
        if let given = request.headers[.requestID], WireRequestID.isAcceptable(given) { context.requestID = given }
        var logger = context.logger
        logger[metadataKey: "request.id"] = "\(context.requestID)"
        context.logger = logger
        var response: Response
        do {
            // Every Wire call made for the request carries its id to the services' logs.
            response = try await WireRequestID.$current.withValue(context.requestID) {
                try await next(request, context)
            }
        } catch {
            let language = AnswerLanguage.choose(
                acceptLanguage: request.headers[.acceptLanguage], locale: await tokenLocale(request),
                supported: ErrorTexts.languages)
            response = Self.response(for: error, requestID: context.requestID, logger: logger, language: language)
        }
        response.headers[.requestID] = context.requestID
        return response
    }

    /// The locale of the request's bearer token, when it carries a valid one.
    private func tokenLocale(_ request: Request) async -> String? {
        guard let header = request.headers[.authorization], header.utf8.count > 7,
            header.prefix(7).lowercased() == "bearer "
        else { return nil }
        return try? await tokens.verify(accessToken: String(header.dropFirst(7))).locale
    }

    static func response(for error: any Error, requestID: String, logger: Logger, language: String) -> Response {
        let status: HTTPResponse.Status
        var failure: OrderlyError
        switch error {
        case let error as OrderlyError:
            failure = publicForm(of: error, logger: logger)
            status = HTTPResponse.Status(code: error.code.httpStatus)
        case is NIOTooManyBytesError:
            failure = OrderlyError(.payloadTooLarge, "the request body is too large")
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
        failure = Self.localized(failure, in: language)
        var headers: HTTPFields = [.contentType: "application/json", .contentLanguage: language]
        if let error = error as? HTTPError { headers.append(contentsOf: error.headers) }
        if case .int(let seconds) = failure.details?["retry_after_seconds"] { headers[.retryAfter] = "\(seconds)" }
        return Response(
            status: status, headers: headers,
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: ErrorEnvelope.encode(failure, requestID: requestID))))
    }

    /// `error` in `language`: its message, and each reason beside a field that a template of
    /// `FieldReasonTexts` knows; the rest of the details (amounts, ids, lists) as they are.
    static func localized(_ error: OrderlyError, in language: String) -> OrderlyError {
        guard language != "en" else { return error }
        var localized = error
        localized.message = ErrorTexts.message(of: error, in: language)
        localized.details = error.details?.mapValues { value in
            guard case .string(let reason) = value, let translated = FieldReasonTexts.translate(reason, to: language)
            else { return value }
            return .string(translated)
        }
        return localized
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
}
