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
