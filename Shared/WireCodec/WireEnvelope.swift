public import Domain
public import Foundation
import JSON
public import NIOCore

/// The kinds of frame on a Wire connection.
public enum WireMessageType: String, Sendable, Hashable {
    case hello, request, response, error, ping, pong
}

/// One Wire message (docs/ARCHITECTURE.md, "Wire"). `body` stays raw JSON bytes until the handler or caller decodes
/// it into its own type, so a body is parsed once and encoded once.
public struct WireEnvelope: Sendable {
    public var version: Int64
    public var type: WireMessageType
    /// Request id on its connection; a response or error carries the id of its request.
    public var id: UInt64
    public var method: String?
    /// The time the caller still allows, in milliseconds, counted from when the frame was sent.
    public var deadlineMilliseconds: Int64?
    /// W3C `traceparent`.
    public var trace: String?
    /// The client request's id the call serves (`WireRequestID`).
    public var requestID: String?
    public var principal: Principal?
    public var idempotencyKey: String?
    /// Raw JSON of the body, if any.
    public var body: ByteBuffer?
    public var error: OrderlyError?

    public init(
        type: WireMessageType, id: UInt64, method: String? = nil, deadlineMilliseconds: Int64? = nil,
        trace: String? = nil, requestID: String? = nil, principal: Principal? = nil, idempotencyKey: String? = nil,
        body: ByteBuffer? = nil, error: OrderlyError? = nil
    ) {
        self.version = WireDefaults.protocolVersion
        self.type = type
        self.id = id
        self.method = method
        self.deadlineMilliseconds = deadlineMilliseconds
        self.trace = trace
        self.requestID = requestID
        self.principal = principal
        self.idempotencyKey = idempotencyKey
        self.body = body
        self.error = error
    }

    /// A failure to read an envelope, with the request id when it could be read, so that the
    /// error frame can be matched to its request.
    public struct ParseError: Error, Sendable {
        public var id: UInt64?
        public var error: WireProtocolError
    }

    /// Reads an envelope from one frame's payload.
    public static func parse(_ frame: ByteBuffer) throws(ParseError) -> WireEnvelope {
        var id: UInt64?
        do {
            return try frame.withUnsafeReadableBytes { bytes in
                try parse(bytes, frame: frame, id: &id)
            }
        } catch let failure as WireProtocolError {
            throw ParseError(id: id, error: failure)
        } catch let failure as JSONScanner.Failure {
            switch failure {
            case .syntax(let what, let offset):
                throw ParseError(id: id, error: .malformedEnvelope("\(what) at byte \(offset)"))
            }
        } catch {
            throw ParseError(id: id, error: .malformedEnvelope("\(error)"))
        }
    }

    private static func parse(_ bytes: UnsafeRawBufferPointer, frame: ByteBuffer, id: inout UInt64?) throws
        -> WireEnvelope
    {
        var scanner = JSONScanner(bytes)
        var version: Int64?
        var typeName: String?
        var envelope = WireEnvelope(type: .request, id: 0)
        try scanner.readObject { scanner, key in
            if scanner.consumeNull() { return }
            switch key {
            case "v": version = try scanner.readInteger()
            case "type": typeName = try scanner.readString()
            case "id":
                let value = try scanner.readInteger()
                guard value >= 0 else { throw WireProtocolError.malformedEnvelope("id must not be negative") }
                id = UInt64(value)
            case "method": envelope.method = try scanner.readString()
            case "deadline_ms": envelope.deadlineMilliseconds = try scanner.readInteger()
            case "trace": envelope.trace = try scanner.readString()
            case "request_id": envelope.requestID = try scanner.readString()
            case "idempotency_key": envelope.idempotencyKey = try scanner.readString()
            case "principal": envelope.principal = try readPrincipal(&scanner)
            case "body":
                let range = try scanner.skipValue()
                envelope.body = frame.getSlice(at: frame.readerIndex + range.lowerBound, length: range.count)
            case "error": envelope.error = try readError(&scanner, bytes: bytes)
            default: _ = try scanner.skipValue()
            }
        }
        try scanner.expectEnd()
        guard let version else { throw WireProtocolError.malformedEnvelope("missing field v") }
        guard version == WireDefaults.protocolVersion else { throw WireProtocolError.unsupportedVersion(version) }
        guard let typeName else { throw WireProtocolError.malformedEnvelope("missing field type") }
        guard let type = WireMessageType(rawValue: typeName) else {
            throw WireProtocolError.malformedEnvelope("unknown type '\(typeName)'")
        }
        envelope.type = type
        envelope.id = id ?? 0
        return envelope
    }

    private static func readPrincipal(_ scanner: inout JSONScanner) throws -> Principal {
        var userID: UserID?
        var role: Role?
        var storeID: StoreID?
        var onDuty = false
        try scanner.readObject { scanner, key in
            if scanner.consumeNull() { return }
            switch key {
            case "user_id":
                let text = try scanner.readString()
                guard let value = UserID(text) else {
                    throw WireProtocolError.malformedEnvelope("principal.user_id is not a UUID")
                }
                userID = value
            case "role":
                let text = try scanner.readString()
                guard let value = Role(rawValue: text) else {
                    throw WireProtocolError.malformedEnvelope("principal.role '\(text)' is unknown")
                }
                role = value
            case "store_id":
                let text = try scanner.readString()
                guard let value = StoreID(text) else {
                    throw WireProtocolError.malformedEnvelope("principal.store_id is not a UUID")
                }
                storeID = value
            case "on_duty": onDuty = try scanner.readBool()
            default: _ = try scanner.skipValue()
            }
        }
        guard let userID, let role else {
            throw WireProtocolError.malformedEnvelope("principal needs user_id and role")
        }
        return Principal(userID: userID, role: role, storeID: storeID, onDuty: onDuty)
    }

    private static func readError(_ scanner: inout JSONScanner, bytes: UnsafeRawBufferPointer) throws -> OrderlyError {
        var code = ErrorCode.internal
        var message = ""
        var reason: ErrorReason?
        var details: [String: JSONValue]?
        try scanner.readObject { scanner, key in
            if scanner.consumeNull() { return }
            switch key {
            case "code":
                let text = try scanner.readString()
                code = ErrorCode(rawValue: text) ?? .internal
            case "message": message = try scanner.readString()
            case "reason": reason = ErrorReason(rawValue: try scanner.readString())
            case "details":
                let range = try scanner.skipValue()
                details = try? WireJSON.decoder.decode(
                    [String: JSONValue].self, from: Data(UnsafeRawBufferPointer(rebasing: bytes[range])))
            default: _ = try scanner.skipValue()
            }
        }
        return OrderlyError(code, message, reason: reason, details: details)
    }

    /// Appends this envelope's JSON to `buffer`.
    public func write(into buffer: inout ByteBuffer) {
        buffer.writeStaticString("{\"v\":")
        buffer.writeString(String(version))
        buffer.writeStaticString(",\"type\":\"")
        buffer.writeString(type.rawValue)
        buffer.writeStaticString("\",\"id\":")
        buffer.writeString(String(id))
        if let method {
            buffer.writeStaticString(",\"method\":")
            JSONStringWriter.write(method, into: &buffer)
        }
        if let deadlineMilliseconds {
            buffer.writeStaticString(",\"deadline_ms\":")
            buffer.writeString(String(deadlineMilliseconds))
        }
        if let trace {
            buffer.writeStaticString(",\"trace\":")
            JSONStringWriter.write(trace, into: &buffer)
        }
        if let requestID {
            buffer.writeStaticString(",\"request_id\":")
            JSONStringWriter.write(requestID, into: &buffer)
        }
        if let principal {
            buffer.writeStaticString(",\"principal\":{\"user_id\":\"")
            buffer.writeString(principal.userID.description)
            buffer.writeStaticString("\",\"role\":\"")
            buffer.writeString(principal.role.rawValue)
            buffer.writeStaticString("\"")
            if let storeID = principal.storeID {
                buffer.writeStaticString(",\"store_id\":\"")
                buffer.writeString(storeID.description)
                buffer.writeStaticString("\"")
            }
            if principal.onDuty { buffer.writeStaticString(",\"on_duty\":true") }
            buffer.writeStaticString("}")
        }
        if let idempotencyKey {
            buffer.writeStaticString(",\"idempotency_key\":")
            JSONStringWriter.write(idempotencyKey, into: &buffer)
        }
        if let body {
            buffer.writeStaticString(",\"body\":")
            buffer.writeImmutableBuffer(body)
        }
        if let error {
            buffer.writeStaticString(",\"error\":{\"code\":\"")
            buffer.writeString(error.code.rawValue)
            buffer.writeStaticString("\",\"message\":")
            JSONStringWriter.write(error.message, into: &buffer)
            if let reason = error.reason {
                buffer.writeStaticString(",\"reason\":")
                JSONStringWriter.write(reason.rawValue, into: &buffer)
            }
            // Keys sorted, so that the same error is always the same text.
            if let details = error.details, let json = try? RFC3339.sortedKeysEncoder.encode(details) {
                buffer.writeStaticString(",\"details\":")
                buffer.writeBytes(json)
            }
            buffer.writeStaticString("}")
        }
        buffer.writeStaticString("}")
    }

    /// This envelope as a frame payload.
    public func encoded(allocator: ByteBufferAllocator) -> ByteBuffer {
        var buffer = allocator.buffer(capacity: 128 + (body?.readableBytes ?? 0))
        write(into: &buffer)
        return buffer
    }
}

/// The JSON settings every Wire body uses: RFC 3339 dates; keys are spelled by each type's
/// `CodingKeys` (snake_case), never converted at run time.
public enum WireJSON {
    public static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = RFC3339.encodingStrategy
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return encoder
    }()

    public static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = RFC3339.decodingStrategy
        return decoder
    }()

    /// Decodes straight from the frame's bytes, without copying them first.
    public static func decode<Value: Decodable>(_ type: Value.Type, from buffer: ByteBuffer) throws -> Value {
        try decode(type, from: buffer, using: decoder)
    }

    /// Decodes with `decoder` straight from the buffer's bytes, without copying them first.
    public static func decode<Value: Decodable>(
        _ type: Value.Type, from buffer: ByteBuffer, using decoder: JSONDecoder
    ) throws -> Value {
        try buffer.withUnsafeReadableBytes { bytes in
            guard let base = bytes.baseAddress, bytes.count > 0 else {
                return try decoder.decode(type, from: Data())
            }
            let view = Data(
                bytesNoCopy: UnsafeMutableRawPointer(mutating: base), count: bytes.count, deallocator: .none)
            return try decoder.decode(type, from: view)
        }
    }
}
