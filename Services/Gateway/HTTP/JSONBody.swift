import Contracts
import Domain
import Foundation
import HTTPTypes
import Hummingbird
import JSON
import NIOCore
import Wire
import WireCodec

/// JSON in and out of the gateway, in the same shape as Wire bodies: `snake_case` keys from
/// each type's `CodingKeys`, RFC 3339 times. Unknown fields in a request are ignored.
enum JSONBody {
    /// Reads the whole body (up to the context's `maxUploadSize`; more is 413) as `Value`. A
    /// missing body, malformed JSON or a field of the wrong type is a 400 naming the field.
    static func decode<Value: Decodable>(_ type: Value.Type, from request: Request, context: GatewayContext)
        async throws -> Value
    {
        try decode(type, from: try await collect(request, context: context))
    }

    /// The whole body, up to the context's `maxUploadSize` (more is 413).
    static func collect(_ request: Request, context: GatewayContext) async throws -> ByteBuffer {
        var request = request
        return try await request.collectBody(upTo: context.maxUploadSize)
    }

    /// Reads a collected body as `Value`.
    static func decode<Value: Decodable>(_ type: Value.Type, from buffer: ByteBuffer) throws -> Value {
        guard buffer.readableBytes > 0 else { throw OrderlyError.invalidFields(["body": "is required"]) }
        do {
            return try WireJSON.decode(type, from: buffer)
        } catch let error as DecodingError {
            throw OrderlyError(decoding: error)
        }
    }

    /// A JSON response; `version` becomes the `ETag`.
    static func response(_ value: some Encodable, status: HTTPResponse.Status = .ok, version: Int64? = nil) throws
        -> Response
    {
        var headers: HTTPFields = [.contentType: "application/json"]
        if let version { headers[.eTag] = "\"\(version)\"" }
        return Response(
            status: status, headers: headers,
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: try WireJSON.encoder.encode(value))))
    }
}

extension JSONBody {
    /// A response whose JSON a service wrote (`WireClient.forward`), passed on unchanged. With
    /// `versioned`, the body's top-level `version` becomes the `ETag`.
    static func forwarded(_ body: ByteBuffer, status: HTTPResponse.Status = .ok, versioned: Bool = false) -> Response {
        var headers: HTTPFields = [.contentType: "application/json"]
        if versioned, let version = topLevelVersion(of: body) { headers[.eTag] = "\"\(version)\"" }
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: body))
    }

    /// The integer `version` field of a JSON object, if it has one. Read by the scanner that
    /// reads Wire envelopes, which skips the rest of the object unread (decoding a whole order
    /// to find it cost as much as verifying the caller's token).
    static func topLevelVersion(of body: ByteBuffer) -> Int64? {
        body.withUnsafeReadableBytes { bytes in
            var scanner = JSONScanner(bytes)
            var version: Int64?
            do {
                try scanner.readObject { scanner, key in
                    if key == "version", !scanner.consumeNull() {
                        version = try scanner.readInteger()
                    } else {
                        _ = try scanner.skipValue()
                    }
                }
            } catch {
                return nil
            }
            return version
        }
    }
}

extension JSONBody {
    /// A PATCH body: the changes, and the version they are based on, from `If-Match` or the
    /// body's `expected_version`.
    static func patch<ID, Changes: Decodable>(
        _ request: Request, context: GatewayContext, id: ID, _ type: Changes.Type
    ) async throws -> Patch<ID, Changes> {
        let buffer = try await collect(request, context: context)
        let changes = try decode(Changes.self, from: buffer)
        let expected = try decode(ExpectedVersion.self, from: buffer).expectedVersion
        return Patch(id: id, expectedVersion: try request.expectedVersion() ?? expected, changes: changes)
    }

    /// The `expected_version` a PATCH body may carry instead of `If-Match`.
    private struct ExpectedVersion: Decodable, Sendable {
        var expectedVersion: Int64?

        enum CodingKeys: String, CodingKey { case expectedVersion = "expected_version" }
    }
}
