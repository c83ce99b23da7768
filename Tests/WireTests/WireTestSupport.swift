import Domain
import Logging
import NIOCore
import NIOPosix
import Synchronization
import Wire
import WireCodec
import WireContract

/// The methods the live tests serve.
enum TestAPI {
    struct Echo: Codable, Sendable, Equatable {
        var text: String
        var delayMilliseconds: Int?
        enum CodingKeys: String, CodingKey {
            case text
            case delayMilliseconds = "delay_ms"
        }
    }

    struct Who: Codable, Sendable {
        var caller: String
        var principal: Principal?
        var idempotencyKey: String?
        /// The client request's id the call carried, and the one the handler's own calls would.
        var clientRequestID: String?
        var forwardedRequestID: String?
    }

    static let echo = WireMethod<Echo, Echo>("test.echo", safeToRetry: true)
    static let write = WireMethod<Echo, Echo>("test.write", safeToRetry: false)
    static let who = WireMethod<WireEmpty, Who>("test.who", safeToRetry: true)
    /// Answers with the text ten times over.
    static let amplify = WireMethod<Echo, Echo>("test.amplify", safeToRetry: true)
    static let fail = WireMethod<WireEmpty, WireEmpty>("test.fail", safeToRetry: true)
    static let crash = WireMethod<WireEmpty, WireEmpty>("test.crash", safeToRetry: true)
    /// Fails as a database does for the moment (a serialization failure, a lost connection).
    static let busy = WireMethod<WireEmpty, WireEmpty>("test.busy", safeToRetry: true)
    static let missing = WireMethod<WireEmpty, WireEmpty>("test.missing", safeToRetry: true)

    struct Secret: Error {}
    struct Busy: TransientFailure { var isTransient: Bool { true } }

    static var router: WireRouter { makeRouter() }

    /// The test methods; `onDelayedEntry` runs when a call with a delay reaches its handler, so a
    /// test can wait until the server really holds it (and hold it longer: the delay starts when
    /// `onDelayedEntry` returns).
    static func makeRouter(onDelayedEntry: (@Sendable () async -> Void)? = nil) -> WireRouter {
        var router = WireRouter()
        let echoHandler: @Sendable (Echo, WireRequestContext) async throws -> Echo = { request, _ in
            if let delay = request.delayMilliseconds {
                await onDelayedEntry?()
                try await Task.sleep(for: .milliseconds(delay))
            }
            return request
        }
        router.register(echo, echoHandler)
        router.register(write, echoHandler)
        router.register(amplify) { request, _ in Echo(text: String(repeating: request.text, count: 10)) }
        router.register(who) { _, context in
            Who(
                caller: context.callerService, principal: context.principal, idempotencyKey: context.idempotencyKey,
                clientRequestID: context.clientRequestID, forwardedRequestID: WireRequestID.current)
        }
        router.register(fail) { _, _ in
            throw OrderlyError(.notFound, "no such thing", reason: ErrorReason(rawValue: "thing_not_found"))
        }
        router.register(crash) { _, _ in throw Secret() }
        router.register(busy) { _, _ in throw Busy() }
        return router
    }
}

let testSecret = WireSecret("test-internal-secret-0123456789")!

/// A Wire server on a free loopback port, running until `stop()`.
struct RunningServer {
    let server: WireServer
    let task: Task<Void, any Error>
    let port: Int

    static func start(
        host: String = "127.0.0.1", port: Int = 0, stallTimeout: TimeAmount = .seconds(60),
        maximumFrameLength: Int = WireDefaults.maximumFrameLength, maximumInFlight: Int = 1024,
        maximumConnections: Int = WireDefaults.maximumConnections,
        maximumUnprovenConnections: Int = WireDefaults.maximumUnprovenConnections, router: WireRouter = TestAPI.router,
        callers: WireCallers? = nil, tls: WireTLS? = nil, logger: Logger = Logger(label: "test.server")
    ) async throws -> RunningServer {
        var router = router
        router.callers = callers
        let server = WireServer(
            configuration: WireServerConfiguration(
                host: host, port: port, serviceName: "test", secret: testSecret, maximumFrameLength: maximumFrameLength,
                stallTimeout: stallTimeout, maximumRequestsInFlightPerConnection: maximumInFlight,
                maximumConnections: maximumConnections, maximumUnprovenConnections: maximumUnprovenConnections,
                shutdownGracePeriod: .seconds(5), tls: tls),
            router: router, logger: logger)
        let task = Task { try await server.run() }
        let address = try await server.localAddress()
        return RunningServer(server: server, task: task, port: address.port!)
    }

    func stop() async throws {
        server.shutdownGracefully()
        try await task.value
    }

    func connect(
        secret: WireSecret = testSecret, as caller: String = "tests", host: String = "127.0.0.1", tls: WireTLS? = nil
    ) async throws -> WireConnection {
        // A long timeout: the other suites run beside it and may slow the hello down.
        try await WireConnection.connect(
            host: host, port: port, server: "test", callerService: caller, secret: secret,
            connectTimeout: .seconds(10), tls: tls)
    }

    func pool(connections: Int = 2, maximumAttempts: Int = 3) -> WireClient {
        WireClient(
            configuration: WireClientConfiguration(
                service: "test", endpoints: [WireEndpoint(host: "127.0.0.1", port: port)], callerService: "tests",
                secret: testSecret, connectionsPerEndpoint: connections,
                reconnectBackoff: (.milliseconds(20), .milliseconds(200)), maximumAttempts: maximumAttempts),
            logger: Logger(label: "test.client"))
    }
}

/// A client that speaks raw frames (or raw bytes), to test the server against misbehaving peers.
/// Used from one task at a time.
final class RawPeer {
    let channel: any Channel
    private var frames: AsyncThrowingStream<ByteBuffer, any Error>.AsyncIterator

    init(port: Int) async throws {
        let connected = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(host: "127.0.0.1", port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(
                        ByteToMessageHandler(WireFrameDecoder(stallTimeout: nil)))
                    return try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
        channel = connected.channel
        // The frames the server sends, read by a task of their own until it closes.
        let (stream, continuation) = AsyncThrowingStream<ByteBuffer, any Error>.makeStream()
        Task {
            do {
                try await connected.executeThenClose { inbound, _ in
                    for try await frame in inbound { continuation.yield(frame) }
                }
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        frames = stream.makeAsyncIterator()
    }

    deinit {
        channel.close(promise: nil)
    }

    static func frame(_ text: String) -> ByteBuffer {
        var buffer = ByteBuffer()
        buffer.writeInteger(UInt32(text.utf8.count))
        buffer.writeString(text)
        return buffer
    }

    static func frame(_ envelope: WireEnvelope) -> ByteBuffer {
        let payload = envelope.encoded(allocator: ByteBufferAllocator())
        var buffer = ByteBuffer()
        buffer.writeInteger(UInt32(payload.readableBytes))
        buffer.writeImmutableBuffer(payload)
        return buffer
    }

    func send(_ bytes: ByteBuffer) async throws {
        try await channel.writeAndFlush(bytes)
    }

    /// The whole handshake as `caller`; returns the server's last answer.
    func hello(secret: WireSecret = testSecret, caller: String = "raw") async throws -> WireEnvelope? {
        guard let challenge = try await sendHello(WireHello(service: caller)) else { return nil }
        guard challenge.type == .hello, let body = challenge.body,
            let nonce = try WireJSON.decode(WireHello.self, from: body).challenge
        else { return challenge }
        guard let answer = WireHello.answer(caller: caller, server: "test", challenge: nonce, keys: secret) else {
            return nil
        }
        return try await sendHello(answer)
    }

    func sendHello(_ hello: WireHello) async throws -> WireEnvelope? {
        var body = ByteBuffer()
        body.writeBytes(try WireJSON.encoder.encode(hello))
        try await send(Self.frame(WireEnvelope(type: .hello, id: 0, body: body)))
        return try await next()
    }

    /// Every frame the server sends until it closes the connection.
    func framesUntilClosed() async throws -> [WireEnvelope] {
        var received: [WireEnvelope] = []
        do {
            while let frame = try await frames.next() { received.append(try WireEnvelope.parse(frame)) }
        } catch is ChannelError {}
        return received
    }

    func next() async throws -> WireEnvelope? {
        try await frames.next().map { try WireEnvelope.parse($0) }
    }

    var isActive: Bool { channel.isActive }

    func close() async {
        try? await channel.close()
    }
}

/// A server that answers the hello, then drops the connection on every request it receives,
/// counting them: the client's retry rules can be checked against it.
final class DroppingServer: Sendable {
    let channel: any Channel
    let port: Int
    private let counter: Counter

    /// How many requests arrived so far.
    var requests: Int { counter.count.withLock { $0 } }

    private init(channel: any Channel, counter: Counter) {
        self.channel = channel
        self.port = channel.localAddress!.port!
        self.counter = counter
    }

    static func start() async throws -> DroppingServer {
        let counter = Counter()
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandlers([
                        ByteToMessageHandler(WireFrameDecoder()), MessageToByteHandler(WireFrameEncoder()),
                        Handler(counter: counter),
                    ])
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        return DroppingServer(channel: channel, counter: counter)
    }

    final class Counter: Sendable {
        let count = Mutex(0)
    }

    final class Handler: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        typealias OutboundOut = ByteBuffer
        let counter: Counter

        init(counter: Counter) { self.counter = counter }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            guard let envelope = try? WireEnvelope.parse(unwrapInboundIn(data)) else { return }
            if envelope.type == .hello {
                // Takes any caller: a challenge for the name, then a welcome for the proof.
                let answer = WireEnvelope(
                    type: .hello, id: 0, body: ByteBuffer(string: #"{"service":"dropper","challenge":"00"}"#))
                context.writeAndFlush(
                    wrapOutboundOut(answer.encoded(allocator: context.channel.allocator)), promise: nil)
            } else {
                counter.count.withLock { $0 += 1 }
                context.close(promise: nil)
            }
        }
    }
}

/// Collects strings from several tasks, in the order they arrive.
final class Recorder: Sendable {
    private let storage = Mutex<[String]>([])
    func append(_ item: String) { storage.withLock { $0.append(item) } }
    var items: [String] { storage.withLock { $0 } }
}

/// Holds any number of waiters until it is opened; for keeping handlers busy exactly as long as
/// a test needs, however slow the machine.
final class Latch: Sendable {
    private let state = Mutex<(open: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    func wait() async {
        await withCheckedContinuation { continuation in
            let resumeNow = state.withLock { state in
                if state.open { return true }
                state.waiters.append(continuation)
                return false
            }
            if resumeNow { continuation.resume() }
        }
    }

    func open() {
        let waiters = state.withLock { state in
            state.open = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }
}

/// A TCP relay on a port of its own that stays the same while the server behind it is replaced:
/// what a client sees of a server restarting at its address, without any port being bound again.
/// While it routes nowhere, it takes each connection and closes it at once, as a port with
/// nothing listening refuses it.
final class TCPRelay: Sendable {
    let port: Int
    private let listener: any Channel
    private let state: Shared

    private struct State {
        var backend: Int?
        var connections: [ObjectIdentifier: any Channel] = [:]
    }

    /// The state, shared with the listener's connection handling.
    private final class Shared: Sendable {
        let value: Mutex<State>
        init(backend: Int) { value = Mutex(State(backend: backend)) }
        func withLock<T>(_ body: (inout State) -> T) -> T { value.withLock { body(&$0) } }
    }

    private init(listener: any Channel, state: Shared) {
        self.listener = listener
        self.port = listener.localAddress!.port!
        self.state = state
    }

    static func start(routingTo backend: Int) async throws -> TCPRelay {
        let state = Shared(backend: backend)
        let listener = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { inbound in
                guard let backend = state.withLock({ $0.backend }) else { return inbound.close() }
                return ClientBootstrap(group: inbound.eventLoop)
                    .channelInitializer { outbound in
                        outbound.eventLoop.makeCompletedFuture {
                            try outbound.pipeline.syncOperations.addHandler(Pipe(partner: inbound))
                        }
                    }
                    .connect(host: "127.0.0.1", port: backend)
                    .flatMapThrowing { outbound in
                        try inbound.pipeline.syncOperations.addHandler(Pipe(partner: outbound))
                        state.withLock { state in
                            state.connections[ObjectIdentifier(inbound)] = inbound
                            state.connections[ObjectIdentifier(outbound)] = outbound
                        }
                    }
                    .flatMapError { _ in inbound.close() }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        return TCPRelay(listener: listener, state: state)
    }

    /// Sends new connections to `backend`, or refuses them when it is nil.
    func route(to backend: Int?) {
        state.withLock { $0.backend = backend }
    }

    /// Closes every relayed connection, both sides.
    func dropConnections() {
        let open = state.withLock { state in
            defer { state.connections = [:] }
            return Array(state.connections.values)
        }
        for channel in open { channel.close(promise: nil) }
    }

    func stop() async throws {
        dropConnections()
        try await listener.close()
    }

    /// Passes what one side reads to the other, and closes the other when this side closes.
    private final class Pipe: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        let partner: any Channel

        init(partner: any Channel) { self.partner = partner }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            partner.writeAndFlush(unwrapInboundIn(data), promise: nil)
        }

        func channelInactive(context: ChannelHandlerContext) {
            partner.close(promise: nil)
            context.fireChannelInactive()
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            context.close(promise: nil)
        }
    }
}

/// The lines a logger wrote, each its metadata and message, for tests of what a server logs.
final class LogRecording: Sendable {
    private let recorded = Mutex<[String]>([])

    var lines: [String] { recorded.withLock { $0 } }

    /// A logger that writes here, at every level.
    func logger(_ label: String) -> Logger {
        Logger(label: label) { _ in Handler(recording: self) }
    }

    private struct Handler: LogHandler {
        let recording: LogRecording
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let fields = metadata.merging(event.metadata ?? [:]) { $1 }
            let text = fields.keys.sorted().map { "\($0)=\(fields[$0]!)" } + ["\(event.message)"]
            recording.recorded.withLock { $0.append(text.joined(separator: " ")) }
        }
    }
}
