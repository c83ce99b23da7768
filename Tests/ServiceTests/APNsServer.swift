import Foundation
import JWTKit
import NIOCore
import NIOHTTP1
import NIOHTTP2
import NIOPosix
import NIOSSL
import Synchronization
import TestSupport

/// Apple's push service as its documentation describes it, on this machine: HTTP/2 only, over
/// TLS (ALPN `h2`, no HTTP/1.1 fallback), `POST /3/device/<token>`. Each request's provider
/// token is verified with the public half of the key the service signs with (its key id, team
/// and whole-second `iat` checked); one that fails is answered 403 `InvalidProviderToken`, one
/// older than an hour 403 `ExpiredProviderToken`. A request without `apns-topic` or with a
/// payload over 4 KB is refused as Apple refuses it. Otherwise the answer is what the test set
/// for the device token: 200 by default, `400 BadDeviceToken`, `410 Unregistered` (with its
/// `timestamp`), `429 TooManyRequests` or `503 ServiceUnavailable` a number of times before a
/// 200, or nothing at all.
final class APNsServer: Sendable {
    struct Received: Sendable {
        var token: String
        var headers: [String: String]
        var body: [String: Any] {
            (try? JSONSerialization.jsonObject(with: Data(bodyText.utf8))) as? [String: Any] ?? [:]
        }
        var bodyText: String
    }

    enum Answer: Sendable {
        case badDeviceToken
        case unregistered
        /// 429 this many times, then 200.
        case busy(Int)
        /// 503 this many times, then 200.
        case unavailable(Int)
        /// No answer at all.
        case stall
        /// This status with this reason, as Apple refuses a push for good: for its device
        /// (`400 BadTopic`, `400 TopicDisallowed`) or for the sender (`403 InvalidProviderToken`,
        /// `413 PayloadTooLarge`).
        case refused(Int, String)
    }

    private let keys: JWTKeyCollection
    private let keyID: String
    private let teamID: String
    private let state = Mutex<(received: [Received], answers: [String: Answer], invalidTokens: Int)>(([], [:], 0))
    private let channel = Mutex<(any Channel)?>(nil)

    var received: [Received] { state.withLock { $0.received } }
    /// Requests whose provider token did not verify.
    var invalidTokens: Int { state.withLock { $0.invalidTokens } }
    var port: Int { channel.withLock { $0?.localAddress?.port ?? 0 } }

    private init(keys: JWTKeyCollection, keyID: String, teamID: String) {
        self.keys = keys
        self.keyID = keyID
        self.teamID = teamID
    }

    func answer(_ token: String, _ answer: Answer) { state.withLock { $0.answers[token] = answer } }

    /// Starts it on a free loopback port with `certificates`' `apns` certificate, trusting
    /// tokens signed by `key` under `keyID` for `teamID`.
    static func start(
        certificates: TestCertificates, key: ES256PublicKey, keyID: String, teamID: String
    ) async throws -> APNsServer {
        let keys = JWTKeyCollection()
        await keys.add(ecdsa: key, kid: JWKIdentifier(string: keyID))
        let server = APNsServer(keys: keys, keyID: keyID, teamID: teamID)
        var tls = TLSConfiguration.makeServerConfiguration(
            certificateChain: try NIOSSLCertificate.fromPEMFile(certificates.certificate("apns")).map {
                .certificate($0)
            },
            privateKey: .privateKey(try NIOSSLPrivateKey(file: certificates.key("apns"), format: .pem)))
        tls.applicationProtocols = ["h2"]
        let context = try NIOSSLContext(configuration: tls)
        let bound = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: context))
                    _ = try channel.pipeline.syncOperations.configureHTTP2Pipeline(
                        mode: .server, connectionConfiguration: .init(), streamConfiguration: .init()
                    ) { stream in
                        stream.eventLoop.makeCompletedFuture {
                            try stream.pipeline.syncOperations.addHandlers([
                                HTTP2FramePayloadToHTTP1ServerCodec(), StreamHandler(server: server),
                            ])
                        }
                    }
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        server.channel.withLock { $0 = bound }
        return server
    }

    func stop() async {
        try? await channel.withLock { $0 }?.close()
    }

    /// The status and body that answer a push to `token` with these headers.
    fileprivate func respond(token: String, headers: [String: String], body: String) async -> (Int, String)? {
        let authorization = headers["authorization"] ?? ""
        var refusal: String?
        do {
            guard authorization.hasPrefix("bearer ") else { throw ServerError() }
            let jwt = String(authorization.dropFirst("bearer ".count))
            let parts = jwt.split(separator: ".").map { Self.base64URL(String($0)) }
            let header = try JSONDecoder().decode([String: String].self, from: parts[0])
            let payload = try JSONSerialization.jsonObject(with: parts[1]) as? [String: Any] ?? [:]
            let claims = try await keys.verify(jwt, as: Claims.self)
            guard claims.iss.value == teamID, header["kid"] == keyID, header["alg"] == "ES256",
                let issuedAt = payload["iat"] as? NSNumber, issuedAt.doubleValue == issuedAt.doubleValue.rounded()
            else { throw ServerError() }
            if issuedAt.doubleValue < Date().timeIntervalSince1970 - 3600 { refusal = "ExpiredProviderToken" }
        } catch {
            refusal = "InvalidProviderToken"
        }
        if headers["apns-topic"] == nil { return (400, #"{"reason":"MissingTopic"}"#) }
        if body.utf8.count > 4096 { return (413, #"{"reason":"PayloadTooLarge"}"#) }
        return state.withLock { state in
            if let refusal {
                state.invalidTokens += 1
                return (403, #"{"reason":"\#(refusal)"}"#)
            }
            state.received.append(Received(token: token, headers: headers, bodyText: body))
            switch state.answers[token] {
            case nil: return (200, "")
            case .badDeviceToken: return (400, #"{"reason":"BadDeviceToken"}"#)
            case .unregistered:
                let now = Int64(Date().timeIntervalSince1970 * 1000)
                return (410, #"{"reason":"Unregistered","timestamp":\#(now)}"#)
            case .busy(let times):
                guard times > 0 else { return (200, "") }
                state.answers[token] = .busy(times - 1)
                return (429, #"{"reason":"TooManyRequests"}"#)
            case .unavailable(let times):
                guard times > 0 else { return (200, "") }
                state.answers[token] = .unavailable(times - 1)
                return (503, #"{"reason":"ServiceUnavailable"}"#)
            case .stall: return nil
            case .refused(let status, let reason): return (status, #"{"reason":"\#(reason)"}"#)
            }
        }
    }

    static func base64URL(_ text: String) -> Data {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64) ?? Data()
    }

    struct Claims: JWTPayload {
        var iss: IssuerClaim
        var iat: IssuedAtClaim

        func verify(using algorithm: some JWTAlgorithm) async throws {}
    }

    struct ServerError: Error {}
}

/// One HTTP/2 stream: the request, gathered, then the server's answer.
private final class StreamHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    let server: APNsServer
    var head: HTTPRequestHead?
    var body = ""

    init(server: APNsServer) { self.server = server }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head): self.head = head
        case .body(let buffer): body += String(buffer: buffer)
        case .end:
            guard let head else { return }
            let headers = Dictionary(
                head.headers.map { ($0.name.lowercased(), $0.value) }, uniquingKeysWith: { _, last in last })
            let token = head.method == .POST && head.uri.hasPrefix("/3/device/") ? String(head.uri.dropFirst(10)) : ""
            let (server, body) = (self.server, self.body)
            let loop = context.eventLoop
            let bound = NIOLoopBound((self, context), eventLoop: loop)
            Task {
                guard let (status, answer) = await server.respond(token: token, headers: headers, body: body) else {
                    return
                }
                loop.execute {
                    let (handler, context) = bound.value
                    var responseHeaders = HTTPHeaders()
                    responseHeaders.add(name: "apns-id", value: headers["apns-id"] ?? UUID().uuidString)
                    responseHeaders.add(name: "content-length", value: "\(answer.utf8.count)")
                    context.write(
                        handler.wrapOutboundOut(
                            .head(
                                HTTPResponseHead(
                                    version: head.version, status: .init(statusCode: status), headers: responseHeaders))
                        ),
                        promise: nil)
                    if !answer.isEmpty {
                        context.write(
                            handler.wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: answer)))), promise: nil)
                    }
                    context.writeAndFlush(handler.wrapOutboundOut(.end(nil)), promise: nil)
                }
            }
        }
    }
}
