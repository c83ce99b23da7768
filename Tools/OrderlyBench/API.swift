import ArgumentParser
import AsyncHTTPClient
import Contracts
import Domain
import Foundation
import Histogram
import NIOCore
import NIOHTTP1
import Synchronization

/// The gateway's API over one shared client.
struct API: Sendable {
    let http: HTTPClient
    let base: String

    struct Reply: Sendable {
        var status: Int
        var body: ByteBuffer

        func decode<Value: Decodable>(_ type: Value.Type) throws -> Value {
            try API.decoder.decode(type, from: Data(buffer: body))
        }

        var text: String { String(buffer: body) }
    }

    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = RFC3339.encodingStrategy
        return encoder
    }()

    static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = RFC3339.decodingStrategy
        return decoder
    }()

    @discardableResult
    func send(
        _ method: HTTPMethod, _ path: String, token: String? = nil, body: (some Encodable)? = nil as String?,
        headers: [(String, String)] = []
    ) async throws -> Reply {
        var request = HTTPClientRequest(url: base + path)
        request.method = method
        if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let body {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(data: try Self.encoder.encode(body)))
        }
        let response = try await http.execute(request, timeout: .seconds(60))
        return Reply(status: Int(response.status.code), body: try await response.body.collect(upTo: 16 << 20))
    }

    /// Sends and requires one of `expected` statuses.
    func require(
        _ expected: Set<Int>, _ method: HTTPMethod, _ path: String, token: String? = nil,
        body: (some Encodable)? = nil as String?, headers: [(String, String)] = []
    ) async throws -> Reply {
        let reply = try await send(method, path, token: token, body: body, headers: headers)
        guard expected.contains(reply.status) else {
            throw LoadGenError("\(method) \(path) answered \(reply.status): \(reply.text.prefix(300))")
        }
        return reply
    }
}
