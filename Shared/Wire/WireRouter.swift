import Domain
import Events
import Foundation
import JSON
import Logging
import Metrics
import NIOCore
import WireCodec
public import WireContract

/// Maps method names to handlers. Built before the server starts, then only read.
public struct WireRouter: Sendable {
    typealias ErasedHandler = @Sendable (ByteBuffer?, WireRequestContext) async throws -> Data

    struct Route: Sendable {
        let handle: ErasedHandler
        let succeeded: Counter
        let duration: Metrics.Timer
    }

    private(set) var routes: [String: Route] = [:]
    /// Who may call over the network; nil takes every caller whose hello is valid (tests).
    /// Calls made in-process (`WireRouter.call`) come from the process itself and are not
    /// checked.
    public var callers: WireCallers?

    public init() {}

    /// Whether `caller` may open a connection at all.
    func mayConnect(_ caller: String) -> Bool { callers.map { $0.grants[caller] != nil } ?? true }

    /// Registers the handler for `method`. A later registration of the same name replaces it.
    public mutating func register<Request, Response>(
        _ method: WireMethod<Request, Response>,
        _ handler: @escaping @Sendable (Request, WireRequestContext) async throws -> Response
    ) {
        routes[method.name] = Route(
            handle: { body, context in
                let request: Request
                do {
                    if let body {
                        request = try WireJSON.decode(Request.self, from: body)
                    } else if let empty = WireEmpty() as? Request {
                        request = empty
                    } else {
                        throw OrderlyError.invalidFields(["body": "is required"])
                    }
                } catch let error as DecodingError {
                    throw OrderlyError(decoding: error)
                }
                let response = try await handler(request, context)
                if let writable = response as? any JSONWritable {
                    return Data(writable.jsonBytes(escapingSlashes: false))
                }
                return try WireJSON.encoder.encode(response)
            },
            succeeded: Counter(
                label: "orderly_wire_server_requests_total", dimensions: [("method", method.name), ("outcome", "ok")]),
            duration: Metrics.Timer(
                label: "orderly_wire_server_request_duration_seconds", dimensions: [("method", method.name)])
        )
    }

    /// Runs the request and returns the response or error envelope to send back.
    func respond(to request: WireEnvelope, callerService: String, logger: Logger) async -> WireEnvelope {
        let methodName = request.method ?? ""
        guard let route = routes[methodName] else {
            Counter(
                label: "orderly_wire_server_requests_total",
                dimensions: [("method", "unknown"), ("outcome", "unimplemented")]
            )
            .increment()
            return Self.errorEnvelope(
                id: request.id, OrderlyError(.unimplemented, "no method named '\(methodName)'"))
        }
        if callerService != Self.inProcessCaller,
            let refusal = callers?.refusal(
                caller: callerService, method: methodName, carriesPrincipal: request.principal != nil)
        {
            logger.warning(
                "call refused", metadata: ["rpc.method": "\(methodName)", "wire.refusal": "\(refusal.message)"])
            return Self.errorEnvelope(id: request.id, refusal)
        }
        var deadline: NIODeadline?
        if let milliseconds = request.deadlineMilliseconds {
            guard milliseconds > 0 else {
                return Self.errorEnvelope(id: request.id, OrderlyError(.deadlineExceeded, "deadline already passed"))
            }
            deadline = .now() + .milliseconds(milliseconds)
        }
        let clientRequestID = request.requestID.flatMap { WireRequestID.isAcceptable($0) ? $0 : nil }
        let context = WireRequestContext(
            method: methodName, requestID: request.id, callerService: callerService, principal: request.principal,
            deadline: deadline, trace: request.trace, clientRequestID: clientRequestID,
            idempotencyKey: request.idempotencyKey, connectionLogger: logger)
        let started = NIODeadline.now()
        do {
            let body = try await TraceContext.span(
                methodName, continuing: request.trace, kind: .server,
                attributes: {
                    $0["rpc.system"] = "orderly-wire"
                    $0["rpc.method"] = methodName
                    $0["orderly.caller"] = callerService
                }
            ) {
                // The calls the handler makes carry the client's request id on.
                let body = try await WireRequestID.$current.withValue(clientRequestID) {
                    try await route.handle(request.body, context)
                }
                context.logger.debug("answered")
                return body
            }
            route.duration.recordNanoseconds((NIODeadline.now() - started).nanoseconds)
            route.succeeded.increment()
            var buffer = ByteBufferAllocator().buffer(capacity: body.count)
            buffer.writeBytes(body)
            return WireEnvelope(type: .response, id: request.id, body: buffer)
        } catch {
            route.duration.recordNanoseconds((NIODeadline.now() - started).nanoseconds)
            let failure: OrderlyError
            if let known = error as? OrderlyError {
                failure = known
            } else if isTransient(error) {
                // The database or Redis unreachable, or a write that lost a race the database
                // settles by refusing one side (a serialization failure): the caller may try again.
                context.logger.warning(
                    "handler failed for the moment",
                    metadata: ["error.type": "\(type(of: error))", "error": "\(error)"])
                failure = OrderlyError(.unavailable, "unavailable for the moment; try again")
            } else {
                context.logger.error(
                    "handler failed", metadata: ["error.type": "\(type(of: error))", "error": "\(error)"])
                failure = OrderlyError(.internal, "internal error")
            }
            Counter(
                label: "orderly_wire_server_requests_total",
                dimensions: [("method", methodName), ("outcome", failure.code.rawValue)]
            ).increment()
            return Self.errorEnvelope(id: request.id, failure)
        }
    }

    static func errorEnvelope(id: UInt64, _ error: OrderlyError) -> WireEnvelope {
        WireEnvelope(type: .error, id: id, error: error)
    }
}
