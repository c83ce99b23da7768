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
/// each type's `CodingKeys`, RFC 3339 times. A request body's fields its type does not know are
/// refused, each named (`UnknownFields`), so a misspelt field is never silently dropped.
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

    /// Reads a collected body as `Value`, refusing fields `Value` does not know (but those
    /// `alsoKnown` at the top level): one 400 naming each unknown field beside any other problem.
    static func decode<Value: Decodable>(_ type: Value.Type, from buffer: ByteBuffer, alsoKnown: Set<String> = [])
        throws -> Value
    {
        guard buffer.readableBytes > 0 else { throw OrderlyError.invalidFields(["body": "is required"]) }
        let decoded: (value: Value, unknown: [String])
        do {
            decoded = try UnknownFields.decode(type, from: buffer, alsoKnown: alsoKnown)
        } catch let failure {
            guard let decoding = failure.error as? DecodingError else { throw failure.error }
            var error = OrderlyError(decoding: decoding)
            for field in failure.unknown { error.details?[field] = .string(Self.unknownField) }
            throw error
        }
        try refuse(decoded.unknown)
        return decoded.value
    }

    /// Refuses a body a service reads (passed on as it came) if it carries a field `Value` does
    /// not know; the service answers every other problem of it.
    static func check<Value: Decodable>(_ buffer: ByteBuffer, as type: Value.Type) throws {
        guard buffer.readableBytes > 0 else { return }
        let unknown: [String]
        do {
            unknown = try UnknownFields.decode(type, from: buffer).unknown
        } catch let failure {
            unknown = failure.unknown
        }
        try refuse(unknown)
    }

    /// What an unknown field is told.
    static let unknownField = "unknown field"

    private static func refuse(_ unknown: [String]) throws(OrderlyError) {
        guard !unknown.isEmpty else { return }
        throw OrderlyError.invalidFields(Dictionary(unknown.map { ($0, Self.unknownField) }) { first, _ in first })
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
        let changes = try decode(
            Changes.self, from: buffer, alsoKnown: [ExpectedVersion.CodingKeys.expectedVersion.stringValue])
        let expected: Int64?
        do {
            expected = try WireJSON.decode(ExpectedVersion.self, from: buffer).expectedVersion
        } catch let error as DecodingError {
            throw OrderlyError(decoding: error)
        }
        return Patch(id: id, expectedVersion: try request.expectedVersion() ?? expected, changes: changes)
    }

    /// The `expected_version` a PATCH body may carry instead of `If-Match`.
    private struct ExpectedVersion: Decodable, Sendable {
        var expectedVersion: Int64?

        enum CodingKeys: String, CodingKey { case expectedVersion = "expected_version" }
    }
}
