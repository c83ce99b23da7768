public import Domain
import Logging
public import NIOCore
import WireCodec
public import WireContract

/// What calls a service's Wire methods: a pool of connections to it (`WireClient`), or its own
/// `WireRouter` in the caller's process, which is how tests drive one service, or several, in
/// one process with real handlers and databases.
public protocol WireCaller: ContractCaller {
    /// Calls `method` and decodes its response.
    func call<Request, Response>(
        _ method: WireMethod<Request, Response>, _ request: Request, options: WireCallOptions
    ) async throws -> Response

    /// Calls `method` with a request body that is already JSON (a client's, passed on as it
    /// came) and returns the response body undecoded, as the service wrote it: for a caller that
    /// hands the JSON on unchanged (the gateway). The body must be exactly one JSON value, or
    /// the call is refused with a 400 on `body` before anything is sent.
    func forward<Request, Response>(
        _ method: WireMethod<Request, Response>, json body: ByteBuffer, options: WireCallOptions
    ) async throws -> ByteBuffer
}

extension WireCaller {
    public func call<Request, Response>(
        _ method: WireMethod<Request, Response>, _ request: Request, for principal: Principal?
    ) async throws -> Response {
        try await call(method, request, options: WireCallOptions(principal: principal))
    }

    /// Calls `method` without a principal, trace or idempotency key.
    public func call<Request, Response>(_ method: WireMethod<Request, Response>, _ request: Request) async throws
        -> Response
    {
        try await call(method, request, options: WireCallOptions())
    }

    /// Calls `method` with `request` and returns the response body undecoded.
    public func forward<Request, Response>(
        _ method: WireMethod<Request, Response>, _ request: Request, options: WireCallOptions
    ) async throws -> ByteBuffer {
        var body = ByteBufferAllocator().buffer(capacity: 0)
        body.writeBytes(try WireJSON.encoder.encode(request))
        return try await forward(method, json: body, options: options)
    }
}

extension WireRouter: WireCaller {
    /// The caller name handlers see for a call made in-process.
    public static let inProcessCaller = "in-process"

    private static let logger = Logger(label: "orderly.wire.in-process")

    /// Runs the call through this router as a server would: the request envelope is written
    /// and read back, the handler decodes its body and encodes its answer, and an error comes
    /// back as the `OrderlyError` a remote caller would get.
    public func call<Request, Response>(
        _ method: WireMethod<Request, Response>, _ request: Request, options: WireCallOptions
    ) async throws -> Response {
        try await InProcessCaller(router: self, service: Self.inProcessCaller).call(method, request, options: options)
    }

    public func forward<Request, Response>(
        _ method: WireMethod<Request, Response>, json body: ByteBuffer, options: WireCallOptions
    ) async throws -> ByteBuffer {
        try await InProcessCaller(router: self, service: Self.inProcessCaller).forward(
            method, json: body, options: options)
    }

    /// Calls this router in-process as `service` would over its own connection: the router's
    /// grants (`WireCallers`) apply, and handlers see `service` as the caller. How a suite in
    /// one process wires its services as they are wired apart.
    public func caller(as service: String) -> any WireCaller { InProcessCaller(router: self, service: service) }

    fileprivate func exchange(_ request: WireEnvelope, as service: String) async throws -> WireEnvelope {
        let sent: WireEnvelope
        do {
            sent = try WireEnvelope.parse(request.encoded(allocator: ByteBufferAllocator()))
        } catch {
            throw OrderlyError(.internal, "a request envelope did not read back: \(error.error)")
        }
        let response = await respond(to: sent, callerService: service, logger: Self.logger)
        if response.type == .error { throw response.error ?? OrderlyError(.internal, "error frame without an error") }
        return response
    }
}

/// A router called in-process by a named service (`WireRouter.caller(as:)`).
private struct InProcessCaller: WireCaller {
    let router: WireRouter
    let service: String

    func call<Request, Response>(
        _ method: WireMethod<Request, Response>, _ request: Request, options: WireCallOptions
    ) async throws -> Response {
        let response = try await router.exchange(try method.requestEnvelope(request, options: options), as: service)
        return try method.decodeResponse(response, from: WireRouter.inProcessCaller)
    }

    func forward<Request, Response>(
        _ method: WireMethod<Request, Response>, json body: ByteBuffer, options: WireCallOptions
    ) async throws -> ByteBuffer {
        let response = try await router.exchange(try method.requestEnvelope(json: body, options: options), as: service)
        guard let body = response.body else {
            throw OrderlyError(.internal, "\(method.name) answered without a body")
        }
        return body
    }
}
