import Events
import HTTPTypes
import Hummingbird
import Tracing

/// Where a request's trace begins: a server span per request, a new trace for each. A client that
/// sent its own `traceparent` would otherwise choose the ids the platform's traces are recorded
/// under and whether they are sampled; what it sent is kept as a link of the request's span
/// instead, so that its own trace can still be followed here. A request that came through one of
/// the operator's trusted proxies (`ORDERLY_HTTP_TRUSTED_PROXIES`), which starts traces of its
/// own, continues the proxy's trace. With tracing off it starts no span, and only a trusted
/// proxy's `traceparent` is passed on to the services (`GatewayContext.forwardedTrace`).
///
/// The span records the method, the path and the query (its search text and card uids redacted:
/// neither is the trace's business), the route, the status and the request's id; never a header
/// that carries a token, nor a body.
struct EdgeTracingMiddleware: RouterMiddleware {
    typealias Context = GatewayContext

    /// Who the trusted proxies are.
    let clients: ClientAddressResolver
    /// The query parameters recorded as `REDACTED`.
    static let redacted: Set<Substring> = ["q", "uid"]

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        var context = context
        let sent = request.traceParent
        let trusted = clients.isTrusted(peer: context.clientAddress)
        context.forwardedTrace = trusted ? sent : nil
        guard TraceContext.isEnabled else { return try await next(request, context) }
        let span = startSpan(
            "HTTP \(request.method.rawValue) route not found", context: TraceContext.continuing(context.forwardedTrace),
            ofKind: .server)
        if let sent, !trusted {
            span.addLink(SpanLink(context: TraceContext.continuing(sent), attributes: [:]))
        }
        span.updateAttributes { attributes in
            attributes["http.request.method"] = request.method.rawValue
            attributes["url.path"] = request.uri.path
            if request.uri.query != nil {
                attributes["url.query"] = request.uri.queryParameters.lazy
                    .map { key, value in Self.redacted.contains(key) ? "\(key)=REDACTED" : "\(key)=\(value)" }
                    .joined(separator: "&")
            }
            attributes["user_agent.original"] = request.headers[.userAgent]
            attributes["http.request.header.x_request_id"] = context.requestID
        }
        do {
            var response = try await InstrumentationContext.$current.withValue(span.context) {
                try await next(request, context)
            }
            if let route = context.endpointPath { span.operationName = route }
            span.updateAttributes { attributes in
                attributes["http.route"] = context.endpointPath
                attributes["http.response.status_code"] = Int(response.status.code)
            }
            if response.status.code >= 500 { span.setStatus(SpanStatus(code: .error)) }
            // A stream's span lasts until its last byte is written.
            let body = response.body
            response.body = ResponseBody(contentLength: body.contentLength) { writer in
                defer { span.end() }
                try await body.write(writer)
            }
            return response
        } catch {
            if let route = context.endpointPath { span.operationName = route }
            span.updateAttributes { $0["http.route"] = context.endpointPath }
            span.recordError(error)
            span.setStatus(SpanStatus(code: .error))
            span.end()
            throw error
        }
    }
}
