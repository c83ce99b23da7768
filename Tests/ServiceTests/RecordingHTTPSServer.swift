import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import Synchronization
import TestSupport

/// An HTTPS server on this machine that keeps every request it is sent, as received (path,
/// headers, body's bytes), and answers what its responder says: a push service's stand-in
/// (Google's, a browser's), speaking HTTP/1.1 over TLS.
final class RecordingHTTPSServer: Sendable {
    struct Received: Sendable {
        var path: String
        var headers: [String: String]
        var body: [UInt8]
        var json: [String: Any] { (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] ?? [:] }
    }

    typealias Responder = @Sendable (Received) async -> (status: Int, body: String)

    private let responder: Responder
    private let state = Mutex<[Received]>([])
    private let channel = Mutex<(any Channel)?>(nil)

    var received: [Received] { state.withLock { $0 } }
    var port: Int { channel.withLock { $0?.localAddress?.port ?? 0 } }

    private init(responder: @escaping Responder) { self.responder = responder }

    /// Starts it on a free loopback port with `certificates`' certificate `name`.
    static func start(certificates: TestCertificates, name: String, responder: @escaping Responder) async throws
        -> RecordingHTTPSServer
    {
        let server = RecordingHTTPSServer(responder: responder)
        let tls = TLSConfiguration.makeServerConfiguration(
            certificateChain: try NIOSSLCertificate.fromPEMFile(certificates.certificate(name)).map {
                .certificate($0)
            },
            privateKey: .privateKey(try NIOSSLPrivateKey(file: certificates.key(name), format: .pem)))
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

    /// Keeps the request and asks the responder for its answer.
    fileprivate func respond(to request: Received) async -> (status: Int, body: String) {
        state.withLock { $0.append(request) }
        return await responder(request)
    }

    /// One connection's requests, each gathered, then answered.
    private final class Handler: ChannelInboundHandler {
        typealias InboundIn = HTTPServerRequestPart
        typealias OutboundOut = HTTPServerResponsePart

        let server: RecordingHTTPSServer
        var head: HTTPRequestHead?
        var body: [UInt8] = []

        init(server: RecordingHTTPSServer) { self.server = server }

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
                let request = Received(path: head.uri, headers: headers, body: body)
                let server = self.server
                let loop = context.eventLoop
                let bound = NIOLoopBound((self, context), eventLoop: loop)
                Task {
                    let (status, answer) = await server.respond(to: request)
                    loop.execute {
                        let (handler, context) = bound.value
                        var responseHeaders = HTTPHeaders()
                        responseHeaders.add(name: "content-type", value: "application/json")
                        responseHeaders.add(name: "content-length", value: "\(answer.utf8.count)")
                        context.write(
                            handler.wrapOutboundOut(
                                .head(
                                    HTTPResponseHead(
                                        version: head.version, status: .init(statusCode: status),
                                        headers: responseHeaders))),
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
}

/// Statuses a test sets per key (a path, a device token), taken in turn, the last for good.
final class ScriptedStatuses: Sendable {
    private let statuses = Mutex<[String: [Int]]>([:])

    func set(_ key: String, _ sequence: [Int]) { statuses.withLock { $0[key] = sequence } }

    /// The status for `key` now, or nil when the test set none.
    func next(_ key: String) -> Int? {
        statuses.withLock { statuses in
            guard var sequence = statuses[key], let first = sequence.first else { return nil }
            if sequence.count > 1 { sequence.removeFirst() }
            statuses[key] = sequence
            return first
        }
    }
}
