import Contracts
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

/// Webhook endpoints on this machine, as stores' own systems would run them, for `loadgen
/// --workload notifications`: `POST /hook/<n>` is endpoint `n`. Each delivery's signature is
/// checked with that endpoint's secret by the documented scheme; a good one is answered 200 and
/// kept with its arrival time, a bad one 401 and counted.
final class WebhookSink: Sendable {
    struct Delivery: Sendable {
        var endpoint: Int
        var deliveryID: String
        /// The `data.id` of the event: the order's id for `order.*` events.
        var subject: String
        var type: String
        var at: Date
    }

    private struct State {
        var secrets: [Int: String] = [:]
        var deliveries: [Delivery] = []
        var badSignatures = 0
    }
    private let state = Mutex(State())
    private let channel = Mutex<(any Channel)?>(nil)

    var port: Int { channel.withLock { $0?.localAddress?.port ?? 0 } }
    var deliveries: [Delivery] { state.withLock { $0.deliveries } }
    var badSignatures: Int { state.withLock { $0.badSignatures } }

    /// Listens on a free loopback port.
    static func start() async throws -> WebhookSink {
        let sink = WebhookSink()
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.pipeline.configureHTTPServerPipeline().flatMapThrowing {
                    try channel.pipeline.syncOperations.addHandler(Handler(sink: sink))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        sink.channel.withLock { $0 = channel }
        return sink
    }

    /// Endpoint `n`'s URL.
    func url(_ endpoint: Int) -> String { "http://127.0.0.1:\(port)/hook/\(endpoint)" }

    /// Endpoint `n` checks signatures with `secret` from now on.
    func expect(_ endpoint: Int, secret: String) { state.withLock { $0.secrets[endpoint] = secret } }

    func stop() async { try? await channel.withLock { $0 }?.close() }

    /// The status that answers a POST to `path`.
    fileprivate func receive(_ path: String, _ headers: HTTPHeaders, _ body: String) -> Int {
        let now = Date()
        guard path.hasPrefix("/hook/"), let endpoint = Int(path.dropFirst("/hook/".count)) else { return 404 }
        let event = try? JSONDecoder().decode(Event.self, from: Data(body.utf8))
        return state.withLock { state in
            guard let secret = state.secrets[endpoint] else { return 404 }
            do {
                try OrderlySignature.verify(
                    header: headers.first(name: OrderlySignature.headerName), body: body, secret: secret, now: now,
                    tolerance: 300)
            } catch {
                state.badSignatures += 1
                return 401
            }
            guard let event, let deliveryID = headers.first(name: "Orderly-Delivery-Id") else { return 400 }
            state.deliveries.append(
                Delivery(endpoint: endpoint, deliveryID: deliveryID, subject: event.data.id, type: event.type, at: now))
            return 200
        }
    }

    /// What the sink reads of an event's body.
    private struct Event: Decodable {
        struct Subject: Decodable { var id: String }
        var type: String
        var data: Subject
    }

    /// One connection's requests, each gathered whole and answered with the status `receive` gives.
    private final class Handler: ChannelInboundHandler {
        typealias InboundIn = HTTPServerRequestPart
        typealias OutboundOut = HTTPServerResponsePart

        let sink: WebhookSink
        private var head: HTTPRequestHead?
        private var body = ""

        init(sink: WebhookSink) { self.sink = sink }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case .head(let head):
                self.head = head
                body = ""
            case .body(let buffer):
                body += String(buffer: buffer)
            case .end:
                guard let head else { return }
                let status = head.method == .POST ? sink.receive(head.uri, head.headers, body) : 405
                var headers = HTTPHeaders()
                headers.add(name: "Content-Length", value: "0")
                context.write(
                    wrapOutboundOut(
                        .head(
                            HTTPResponseHead(version: head.version, status: .init(statusCode: status), headers: headers)
                        )),
                    promise: nil)
                context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
                self.head = nil
            }
        }
    }
}
