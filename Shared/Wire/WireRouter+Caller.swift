import Domain
import Logging
public import NIOCore
import WireCodec
public import WireContract

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
