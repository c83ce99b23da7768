internal import Domain
internal import Foundation
internal import HTTPTypes
internal import Hummingbird
internal import NIOCore
internal import Wire

/// JSON in and out of the gateway, in the same shape as Wire bodies: `snake_case` keys from
/// each type's `CodingKeys`, RFC 3339 times. Unknown fields in a request are ignored.
enum JSONBody {
    /// Reads the whole body (up to `maximumBytes`; more is 413) as `Value`. A missing body,
    /// malformed JSON or a field of the wrong type is a 400 naming the field.
    static func decode<Value: Decodable>(_ type: Value.Type, from request: Request, maximumBytes: Int) async throws
        -> Value
    {
        try decode(type, from: try await collect(request, maximumBytes: maximumBytes))
    }

    /// The whole body, up to `maximumBytes` (more is 413).
    static func collect(_ request: Request, maximumBytes: Int) async throws -> ByteBuffer {
        var request = request
        return try await request.collectBody(upTo: maximumBytes)
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

    /// The integer `version` field of a JSON object, if it has one.
    static func topLevelVersion(of body: ByteBuffer) -> Int64? {
        body.withUnsafeReadableBytes { bytes in
            var scanner = JSONScanner(bytes)
            var version: Int64?
            try? scanner.readObject { scanner, key in
                if key == "version" { version = try scanner.readInteger() } else { _ = try scanner.skipValue() }
            }
            return version
        }
    }
}

/// Reads query parameters, collecting every bad one.
struct QueryReader {
    let parameters: Parameters
    var problems = FieldProblems()

    init(_ request: Request) { self.parameters = request.uri.queryParameters }

    func text(_ name: String) -> String? { parameters.get(name) }

    mutating func int(_ name: String, in range: ClosedRange<Int>) -> Int? {
        guard let text = parameters.get(name) else { return nil }
        guard let value = Int(text), range.contains(value) else {
            problems.add(name, "must be an integer from \(range.lowerBound) to \(range.upperBound)")
            return nil
        }
        return value
    }

    mutating func date(_ name: String) -> Date? {
        guard let text = parameters.get(name) else { return nil }
        guard let date = RFC3339.parse(text) else {
            problems.add(name, "must be an RFC 3339 time such as 2026-11-22T09:00:00Z")
            return nil
        }
        return date
    }

    mutating func bool(_ name: String) -> Bool? {
        guard let text = parameters.get(name) else { return nil }
        guard let value = Bool(text) else {
            problems.add(name, "must be true or false")
            return nil
        }
        return value
    }

    mutating func id<Tag>(_ name: String, as: Identifier<Tag>.Type) -> Identifier<Tag>? {
        guard let text = parameters.get(name) else { return nil }
        guard let id = Identifier<Tag>(text) else {
            problems.add(name, "must be a UUID")
            return nil
        }
        return id
    }

    mutating func choices<Value: RawRepresentable & CaseIterable>(_ name: String, as: Value.Type) -> [Value]?
    where Value.RawValue == String {
        guard let text = parameters.get(name) else { return nil }
        var values: [Value] = []
        for part in text.split(separator: ",") {
            guard let value = Value(rawValue: String(part)) else {
                problems.add(name, "must be one or more of " + Value.allCases.map(\.rawValue).joined(separator: ", "))
                return nil
            }
            values.append(value)
        }
        return values
    }

    func check() throws(OrderlyError) { try problems.check() }
}

extension Request {
    /// The W3C `traceparent` header when it is well formed (`00-<32 hex>-<16 hex>-<2 hex>`).
    var traceParent: String? {
        guard let text = headers[.traceparent], text.utf8.count == 55 else { return nil }
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.map(\.count) == [2, 32, 16, 2],
            parts.allSatisfy({ $0.allSatisfy { $0.isHexDigit && !$0.isUppercase } })
        else { return nil }
        return text
    }

    /// The `version` an `If-Match` header names (`"3"` or `3`); a malformed one is a 400.
    func expectedVersion() throws(OrderlyError) -> Int64? {
        guard let text = headers[.ifMatch] else { return nil }
        let trimmed = text.trimmingCharacters(in: CharacterSet(charactersIn: "\" W/"))
        guard let version = Int64(trimmed) else {
            throw OrderlyError.invalidFields(["If-Match": "must be the ETag of the resource, such as \"3\""])
        }
        return version
    }

    /// The id in the path parameter `name`; a malformed one is a 404, as no such resource exists.
    func pathID<Tag>(_ name: String, _ context: GatewayContext, as: Identifier<Tag>.Type) throws(OrderlyError)
        -> Identifier<Tag>
    {
        guard let text = context.parameters.get(name), let id = Identifier<Tag>(text) else {
            throw OrderlyError(.notFound, "no such resource")
        }
        return id
    }
}
