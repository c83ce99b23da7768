import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import Metrics
import NIOCore
import Synchronization

/// Counts every request by its route pattern, method and status as answered (an error's status
/// included: it sits outside the error envelope), and times it to its response's last byte. A
/// long-poll (`wait` above 0) or an event stream is timed apart, by how long it was held, so
/// that neither hides the requests' latency.
struct HTTPMetricsMiddleware: RouterMiddleware {
    typealias Context = GatewayContext

    private let cache = Cache()

    func handle(
        _ request: Request, context: GatewayContext, next: (Request, GatewayContext) async throws -> Response
    ) async throws -> Response {
        let started = ContinuousClock.now
        cache.active.increment()
        var response: Response
        do {
            response = try await next(request, context)
        } catch {
            // Nothing outside the error envelope throws; if something did, Hummingbird answers 500.
            cache.active.decrement()
            cache.count(route: context.endpointPath, request.method, status: .internalServerError)
            throw error
        }
        let held: String? =
            response.headers[.contentType] == "text/event-stream"
            ? "stream" : Self.waits(request.uri) ? "long_poll" : nil
        let (status, cache, body) = (response.status, cache, response.body)
        let finished: @Sendable () -> Void = {
            let (seconds, attoseconds) = (ContinuousClock.now - started).components
            let elapsed = seconds * 1_000_000_000 + attoseconds / 1_000_000_000
            cache.active.decrement()
            cache.count(route: context.endpointPath, request.method, status: status, took: held == nil ? elapsed : nil)
            if let held { cache.held(route: context.endpointPath, kind: held).recordNanoseconds(elapsed) }
        }
        // Timed to the last byte written, as a stream ends when its writing does.
        response.body = ResponseBody(contentLength: body.contentLength) { writer in
            defer { finished() }
            try await body.write(writer)
        }
        return response
    }

    /// Whether the query asks to wait (`wait` above 0), read only from a query that names it.
    static func waits(_ uri: URI) -> Bool {
        guard uri.query?.contains("wait=") == true else { return false }
        return (QueryReader.parameters(of: uri.query ?? "")["wait"].flatMap(Int.init) ?? 0) > 0
    }

    /// Each label set's counter and timer, made once.
    final class Cache: Sendable {
        struct Key: Hashable {
            var route: String
            var method: String
            var status: Int
        }

        let active = Meter(label: "http_server_active_requests")
        private let counters = Mutex<[Key: Counter]>([:])
        /// Only for requests that were timed: a held one has none.
        private let timers = Mutex<[Key: Metrics.Timer]>([:])
        private let heldTimers = Mutex<[String: Metrics.Timer]>([:])

        /// The methods labelled as themselves; any other a client sends is `other`, so that
        /// strangers cannot make series without end.
        static let methods: Set<HTTPRequest.Method> = [.get, .head, .post, .put, .patch, .delete, .options]

        /// The route's pattern; `unmatched` for none (Hummingbird names it `NotFound`).
        static func label(_ route: String?) -> String {
            guard let route, route.hasPrefix("/") else { return "unmatched" }
            return route
        }

        func count(route: String?, _ method: HTTPRequest.Method, status: HTTPResponse.Status, took: Int64? = nil) {
            let key = Key(
                route: Self.label(route), method: Self.methods.contains(method) ? method.rawValue : "other",
                status: status.code)
            let dimensions = { [("route", key.route), ("method", key.method), ("status", "\(key.status)")] }
            counters.withLock { counters in
                if let found = counters[key] { return found }
                let made = Counter(label: "http_server_requests_total", dimensions: dimensions())
                counters[key] = made
                return made
            }.increment()
            guard let took else { return }
            timers.withLock { timers in
                if let found = timers[key] { return found }
                let made = Metrics.Timer(label: "http_server_request_duration_seconds", dimensions: dimensions())
                timers[key] = made
                return made
            }.recordNanoseconds(took)
        }

        func held(route: String?, kind: String) -> Metrics.Timer {
            let route = Self.label(route)
            return heldTimers.withLock { timers in
                if let found = timers[route + " " + kind] { return found }
                let made = Metrics.Timer(
                    label: "http_server_held_request_duration_seconds", dimensions: [("route", route), ("kind", kind)])
                timers[route + " " + kind] = made
                return made
            }
        }
    }
}
