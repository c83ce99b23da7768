import Domain
import Events
import Foundation
import JSON
import Logging
import Metrics
import NIOCore
import WireCodec
import WireContract

extension WireMethod {
    /// The request envelope for a call (its id is assigned when it is sent).
    func requestEnvelope(_ request: Request, options: WireCallOptions) throws -> WireEnvelope {
        var body = ByteBufferAllocator().buffer(capacity: 0)
        do {
            body.writeBytes(try WireJSON.encoder.encode(request))
        } catch {
            throw OrderlyError(.internal, "request for \(name) could not be encoded: \(error)")
        }
        return WireEnvelope(
            type: .request, id: 0, method: name, trace: options.trace, requestID: WireRequestID.current,
            principal: options.principal,
            idempotencyKey: options.idempotencyKey, body: body)
    }

    /// The request envelope for a call whose body is JSON already; refused unless it is exactly
    /// one JSON value, since it goes into the envelope unchanged.
    func requestEnvelope(json body: ByteBuffer, options: WireCallOptions) throws(OrderlyError) -> WireEnvelope {
        guard body.readableBytes > 0 else { throw OrderlyError.invalidFields(["body": "is required"]) }
        let valid = body.withUnsafeReadableBytes { (try? JSONScanner.validate($0)) != nil }
        guard valid else { throw OrderlyError.invalidFields(["body": "is not valid JSON"]) }
        return WireEnvelope(
            type: .request, id: 0, method: name, trace: options.trace, requestID: WireRequestID.current,
            principal: options.principal,
            idempotencyKey: options.idempotencyKey, body: body)
    }

    /// The typed response carried by a response envelope.
    func decodeResponse(_ envelope: WireEnvelope, from service: String) throws -> Response {
        guard let body = envelope.body else {
            if let empty = WireEmpty() as? Response { return empty }
            throw OrderlyError(.internal, "\(service) answered \(name) without a body")
        }
        do {
            return try WireJSON.decode(Response.self, from: body)
        } catch {
            throw OrderlyError(.internal, "\(service) answered \(name) with an unreadable body")
        }
    }
}
