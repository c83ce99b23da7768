import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import Synchronization
import TestSupport

/// A browser's push service (RFC 8030) on this machine, over TLS: it keeps every `POST` it is
/// sent, as received (path, headers, body's bytes), and answers what the test set for the path:
/// 201 by default, 410 (the subscription is gone), or 429 a number of times before a 201.
final class WebPushServer: Sendable {
    struct Received: Sendable {
        var path: String
        var headers: [String: String]
        var body: [UInt8]
    }

    enum Answer: Sendable {
        case gone
        /// 429 this many times, then 201.
        case busy(Int)
    }

    private let state = Mutex<(received: [Received], answers: [String: Answer])>(([], [:]))
    private let channel = Mutex<(any Channel)?>(nil)

    var received: [Received] { state.withLock { $0.received } }
    var port: Int { channel.withLock { $0?.localAddress?.port ?? 0 } }

    func answer(_ path: String, _ answer: Answer) { state.withLock { $0.answers[path] = answer } }

    /// Starts it on a free loopback port with `certificates`' `push` certificate.
    static func start(certificates: TestCertificates) async throws -> WebPushServer {
        let server = WebPushServer()
        let tls = TLSConfiguration.makeServerConfiguration(
            certificateChain: try NIOSSLCertificate.fromPEMFile(certificates.certificate("push")).map {
                .certificate($0)
            },
            privateKey: .privateKey(try NIOSSLPrivateKey(file: certificates.key("push"), format: .pem)))
        let context = try NIOSSLContext(configuration: tls)
        let bound = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: context))
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    try channel.pipeline.syncOperations.addHandler(Handler(server: server))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        server.channel.withLock { $0 = bound }
        return server
    }

    func stop() async {
        try? await channel.withLock { $0 }?.close()
    }

    /// Keeps the request and says the status that answers it.
    fileprivate func respond(path: String, headers: [String: String], body: [UInt8]) -> Int {
        state.withLock { state in
            state.received.append(Received(path: path, headers: headers, body: body))
            switch state.answers[path] {
            case nil: return 201
            case .gone: return 410
            case .busy(let times):
                guard times > 0 else { return 201 }
                state.answers[path] = .busy(times - 1)
                return 429
            }
        }
    }

    /// One connection's requests, each gathered, then answered.
    private final class Handler: ChannelInboundHandler {
        typealias InboundIn = HTTPServerRequestPart
        typealias OutboundOut = HTTPServerResponsePart

        let server: WebPushServer
        var head: HTTPRequestHead?
        var body: [UInt8] = []

        init(server: WebPushServer) { self.server = server }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case .head(let head):
                self.head = head
                body = []
            case .body(var buffer): body += buffer.readBytes(length: buffer.readableBytes) ?? []
            case .end:
                guard let head else { return }
                let headers = Dictionary(
                    head.headers.map { ($0.name.lowercased(), $0.value) }, uniquingKeysWith: { _, last in last })
                let status = server.respond(path: head.uri, headers: headers, body: body)
                var responseHeaders = HTTPHeaders()
                responseHeaders.add(name: "content-length", value: "0")
                context.write(
                    wrapOutboundOut(
                        .head(
                            HTTPResponseHead(
                                version: head.version, status: .init(statusCode: status), headers: responseHeaders))),
                    promise: nil)
                context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
            }
        }
    }
}
