import Domain
import Foundation
import JSON
public import Logging
public import NIOCore
public import NIOPosix
public import ServiceLifecycle
import Synchronization
public import WireCodec

/// Settings of a Wire server.
public struct WireServerConfiguration: Sendable {
    public var host: String
    /// 0 picks a free port; `WireServer.localAddress()` tells which.
    public var port: Int
    /// This service's name, sent back in the hello answer.
    public var serviceName: String
    public var secret: WireSecret
    public var maximumFrameLength: Int
    /// How long a peer may take to send its hello, or to finish a frame it has begun.
    public var stallTimeout: TimeAmount
    /// Requests one connection may have running at once; more are refused with `resource_exhausted`.
    public var maximumRequestsInFlightPerConnection: Int
    /// Connections open at once; one more is closed as soon as it is accepted.
    public var maximumConnections: Int
    /// Of those, connections whose peer has not proved who it is yet; one more is closed as
    /// soon as it is accepted. Each must prove itself within `stallTimeout`.
    public var maximumUnprovenConnections: Int
    /// How long a graceful shutdown waits for in-flight requests before closing connections.
    public var shutdownGracePeriod: TimeAmount
    /// TLS on every connection, when set; plain TCP otherwise.
    public var tls: WireTLS?

    public init(
        host: String = "127.0.0.1", port: Int, serviceName: String, secret: WireSecret,
        maximumFrameLength: Int = WireDefaults.maximumFrameLength, stallTimeout: TimeAmount = .seconds(10),
        maximumRequestsInFlightPerConnection: Int = 1024, maximumConnections: Int = WireDefaults.maximumConnections,
        maximumUnprovenConnections: Int = WireDefaults.maximumUnprovenConnections,
        shutdownGracePeriod: TimeAmount = .seconds(30), tls: WireTLS? = nil
    ) {
        self.host = host
        self.port = port
        self.serviceName = serviceName
        self.secret = secret
        self.maximumFrameLength = maximumFrameLength
        self.stallTimeout = stallTimeout
        self.maximumRequestsInFlightPerConnection = maximumRequestsInFlightPerConnection
        self.maximumConnections = maximumConnections
        self.maximumUnprovenConnections = min(maximumUnprovenConnections, maximumConnections)
        self.shutdownGracePeriod = shutdownGracePeriod
        self.tls = tls
    }
}

/// Serves a `WireRouter` over TCP. A `Service`: it runs until graceful shutdown, then stops
/// accepting, lets every connection finish the requests it has in flight, and returns.
public final class WireServer: Service, Sendable {
    private let configuration: WireServerConfiguration
    private let router: WireRouter
    private let group: any EventLoopGroup
    private let logger: Logger
    private let bound: EventLoopPromise<SocketAddress>
    private let shutdownRequests: AsyncStream<Void>
    private let shutdownTrigger: AsyncStream<Void>.Continuation
    private let connections = Mutex(ConnectionRegistry())

    private struct ConnectionRegistry {
        var channels: [ObjectIdentifier: any Channel] = [:]
        /// The connections whose peer has not proved who it is yet.
        var unproven: Set<ObjectIdentifier> = []
        var draining = false
        var allClosed: CheckedContinuation<Void, Never>?
        /// Connections refused for the cap, counted to log the first and every thousandth.
        var refused = 0
    }

    public init(
        configuration: WireServerConfiguration, router: WireRouter,
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton, logger: Logger
    ) {
        self.configuration = configuration
        self.router = router
        self.group = group
        var logger = logger
        logger[metadataKey: "wire.service"] = "\(configuration.serviceName)"
        self.logger = logger
        self.bound = group.next().makePromise()
        (self.shutdownRequests, self.shutdownTrigger) = AsyncStream<Void>.makeStream()
    }

    deinit {
        // A server that never ran must not leave its promise unfulfilled.
        bound.fail(CancellationError())
    }

    /// The address the server listens on, once it does.
    public func localAddress() async throws -> SocketAddress {
        try await bound.futureResult.get()
    }

    /// Starts a graceful shutdown, as SIGTERM would.
    public func shutdownGracefully() {
        shutdownTrigger.yield()
        shutdownTrigger.finish()
    }

    public func run() async throws {
        let serverChannel: any Channel
        do {
            serverChannel = try await bootstrap().bind(host: configuration.host, port: configuration.port).get()
        } catch {
            bound.fail(error)
            throw error
        }
        let address = serverChannel.localAddress!
        bound.succeed(address)
        logger.info(
            "wire server listening",
            metadata: ["net.address": "\(address)", "wire.tls": "\(configuration.tls == nil ? "off" : "mutual")"])

        await withTaskCancellationHandler {
            await withGracefulShutdownHandler {
                for await _ in shutdownRequests { break }
            } onGracefulShutdown: {
                self.shutdownGracefully()
            }
        } onCancel: {
            self.shutdownGracefully()
        }

        logger.info("wire server draining")
        try? await serverChannel.close()
        let open = connections.withLock { registry in
            registry.draining = true
            return Array(registry.channels.values)
        }
        for channel in open {
            channel.pipeline.fireUserInboundEventTriggered(WireServerHandler.Drain())
        }
        let grace = group.next().scheduleTask(in: configuration.shutdownGracePeriod) {
            let stragglers = self.connections.withLock { Array($0.channels.values) }
            for channel in stragglers { channel.close(promise: nil) }
        }
        await withCheckedContinuation { continuation in
            let resumeNow = connections.withLock { registry in
                if registry.channels.isEmpty { return true }
                registry.allClosed = continuation
                return false
            }
            if resumeNow { continuation.resume() }
        }
        grace.cancel()
        logger.info("wire server stopped")
    }

    private func bootstrap() -> ServerBootstrap {
        let configuration = self.configuration
        let router = self.router
        let logger = self.logger
        return ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.tcpOption(.tcp_nodelay), value: 1)
            .childChannelOption(.maxMessagesPerRead, value: 16)
            .childChannelInitializer { channel in
                guard self.register(channel) else {
                    return channel.close()
                }
                return channel.eventLoop.makeCompletedFuture {
                    let proof = WirePeerProof()
                    if let tls = configuration.tls {
                        try channel.pipeline.syncOperations.addHandler(tls.serverHandler())
                    }
                    try channel.pipeline.syncOperations.addHandlers([
                        ByteToMessageHandler(
                            WireFrameDecoder(
                                maximumFrameLength: configuration.maximumFrameLength,
                                unprovenFrameLimit: WireDefaults.maximumHelloLength, proof: proof,
                                stallTimeout: configuration.stallTimeout)),
                        MessageToByteHandler(WireFrameEncoder(maximumFrameLength: configuration.maximumFrameLength)),
                        WireServerHandler(
                            configuration: configuration, router: router, proof: proof, logger: logger
                        ) { self.proven(channel) },
                    ])
                }
            }
    }

    /// The connections open now, for tests to look at their sockets.
    var openChannels: [any Channel] { connections.withLock { Array($0.channels.values) } }

    /// Counts a connection whose peer proved who it is among the proven.
    private func proven(_ channel: any Channel) {
        _ = connections.withLock { $0.unproven.remove(ObjectIdentifier(channel)) }
    }

    /// Tracks an accepted connection until it closes; refuses it while draining, when
    /// `maximumConnections` are open, or when `maximumUnprovenConnections` have yet to prove
    /// who they are.
    private func register(_ channel: any Channel) -> Bool {
        let key = ObjectIdentifier(channel)
        enum Admission { case accepted, draining, full(open: Int, refused: Int) }
        let admission = connections.withLock { registry -> Admission in
            guard !registry.draining else { return .draining }
            guard registry.channels.count < configuration.maximumConnections,
                registry.unproven.count < configuration.maximumUnprovenConnections
            else {
                registry.refused += 1
                return .full(open: registry.channels.count, refused: registry.refused)
            }
            registry.channels[key] = channel
            registry.unproven.insert(key)
            return .accepted
        }
        if case .full(let open, let refused) = admission, refused == 1 || refused % 1000 == 0 {
            logger.warning(
                "connection refused: too many open",
                metadata: ["wire.connections": "\(open)", "wire.refused_total": "\(refused)"])
        }
        guard case .accepted = admission else { return false }

        channel.closeFuture.whenComplete { _ in
            let waiter = self.connections.withLock { registry -> CheckedContinuation<Void, Never>? in
                registry.channels[key] = nil
                registry.unproven.remove(key)
                guard registry.draining, registry.channels.isEmpty else { return nil }
                defer { registry.allClosed = nil }
                return registry.allClosed
            }
            waiter?.resume()
        }
        return true
    }
}

/// The protocol on one server connection: hello first, then requests run concurrently and are
/// answered as they finish. Answers ready within a read burst (handlers that did not suspend)
/// share one flush at the end of the burst; later answers are flushed at once, since holding
/// them back makes client and server take turns on whole batches instead of working side by side.
final class WireServerHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// Sent down the pipeline to start a graceful close.
    struct Drain {}

    private enum State {
        case awaitingHello
        /// The caller named itself and was sent `challenge`.
        case awaitingProof(caller: String, challenge: String)
        case ready(caller: String)
        case closing
    }

    private let configuration: WireServerConfiguration
    private let router: WireRouter
    /// Set once the peer proves who it is; its frames then have the full limit.
    private let proof: WirePeerProof
    /// Tells the server the connection is proven.
    private let onProven: () -> Void
    private var logger: Logger
    private var state = State.awaitingHello
    private var inFlight = 0
    private var draining = false
    /// Between the first `channelRead` of a burst and its `channelReadComplete`.
    private var reading = false
    private var helloTimer: Scheduled<Void>?
    private var lingerTimer: Scheduled<Void>?
    private var context: ChannelHandlerContext?

    init(
        configuration: WireServerConfiguration, router: WireRouter, proof: WirePeerProof, logger: Logger,
        onProven: @escaping () -> Void
    ) {
        self.configuration = configuration
        self.router = router
        self.proof = proof
        self.logger = logger
        self.onProven = onProven
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        if let remote = context.channel.remoteAddress { logger[metadataKey: "net.peer"] = "\(remote)" }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        helloTimer?.cancel()
        lingerTimer?.cancel()
        self.context = nil
    }

    func channelActive(context: ChannelHandlerContext) {
        let bound = NIOLoopBound(self, eventLoop: context.eventLoop)
        // Whatever it has sent by then, a peer not proven within the stall timeout is let go.
        helloTimer = context.eventLoop.scheduleTask(in: configuration.stallTimeout) {
            let handler = bound.value
            switch handler.state {
            case .awaitingHello, .awaitingProof:
                handler.fail(OrderlyError(.unauthenticated, "no proven hello received in time"), id: 0)
            case .ready, .closing:
                return
            }
        }
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        reading = true
        let frame = unwrapInboundIn(data)
        let envelope: WireEnvelope
        do {
            envelope = try WireEnvelope.parse(frame)
        } catch {
            guard case .ready = state else {
                fail(OrderlyError(.unauthenticated, "hello required: \(error.error)"), id: error.id ?? 0)
                return
            }
            send(WireRouter.errorEnvelope(id: error.id ?? 0, OrderlyError(.invalidArgument, "\(error.error)")))
            return
        }
        switch state {
        case .awaitingHello, .awaitingProof:
            receiveHello(envelope)
        case .ready(let caller):
            receive(envelope, caller: caller, context: context)
        case .closing:
            break
        }
    }

    /// The handshake (`WireHello`): a caller's name is answered with a challenge, the proof
    /// with the server's name; anything else closes the connection.
    private func receiveHello(_ envelope: WireEnvelope) {
        guard envelope.type == .hello, let body = envelope.body,
            let hello = try? WireJSON.decode(WireHello.self, from: body)
        else { return refuseHello(envelope, "hello required") }
        guard WireHello.isServiceName(hello.service) else {
            return refuseHello(envelope, "a service names itself with 1 to 64 letters, digits, '-', '_' and '.'")
        }
        switch state {
        case .awaitingHello:
            guard router.mayConnect(hello.service) else {
                return refuseHello(envelope, "\(hello.service) may not call \(configuration.serviceName)")
            }
            let challenge = WireHello.makeChallenge()
            state = .awaitingProof(caller: hello.service, challenge: challenge)
            answerHello(
                WireHello(service: configuration.serviceName, challenge: challenge), id: envelope.id)
        case .awaitingProof(let caller, let challenge):
            guard hello.service == caller,
                hello.proves(challenge: challenge, to: configuration.serviceName, keys: configuration.secret)
            else { return refuseHello(envelope, "the proof of \(caller)'s key is not valid") }
            helloTimer?.cancel()
            helloTimer = nil
            state = .ready(caller: caller)
            proof.isProven = true
            onProven()
            logger[metadataKey: "wire.caller"] = "\(caller)"
            answerHello(WireHello(service: configuration.serviceName), id: envelope.id)
        case .ready, .closing:
            break
        }
    }

    private func refuseHello(_ envelope: WireEnvelope, _ why: String) {
        logger.warning("hello refused", metadata: ["wire.refusal": "\(why)"])
        fail(OrderlyError(.unauthenticated, why), id: envelope.id)
    }

    private func answerHello(_ hello: WireHello, id: UInt64) {
        var answer = ByteBufferAllocator().buffer(capacity: 96)
        answer.writeBytes((try? WireJSON.encoder.encode(hello)) ?? Data())
        send(WireEnvelope(type: .hello, id: id, body: answer))
    }

    private func receive(_ envelope: WireEnvelope, caller: String, context: ChannelHandlerContext) {
        switch envelope.type {
        case .ping:
            send(WireEnvelope(type: .pong, id: envelope.id))
        case .request:
            if draining {
                send(WireRouter.errorEnvelope(id: envelope.id, Self.drainingError))
                return
            }
            guard inFlight < configuration.maximumRequestsInFlightPerConnection else {
                send(
                    WireRouter.errorEnvelope(
                        id: envelope.id,
                        OrderlyError(.resourceExhausted, "too many requests in flight on this connection")))
                return
            }
            inFlight += 1
            let router = self.router
            let logger = self.logger
            let limit = configuration.maximumFrameLength
            let eventLoop = context.eventLoop
            let bound = NIOLoopBound(self, eventLoop: eventLoop)
            // Starts on this thread: a handler that never suspends answers without a hop.
            Task.immediate {
                let response = await router.respond(to: envelope, callerService: caller, logger: logger)
                var frame = response.encoded(allocator: ByteBufferAllocator())
                if frame.readableBytes > limit {
                    // Too large to send: this call fails, the connection and its other calls do not.
                    logger.error(
                        "response exceeds the frame limit", metadata: ["rpc.method": "\(envelope.method ?? "")"])
                    frame = WireRouter.errorEnvelope(
                        id: envelope.id,
                        OrderlyError(.internal, "response of \(frame.readableBytes) bytes exceeds the frame limit")
                    ).encoded(allocator: ByteBufferAllocator())
                }
                if eventLoop.inEventLoop {
                    bound.value.finish(frame)
                } else {
                    eventLoop.execute { [frame] in bound.value.finish(frame) }
                }
            }
        default:
            send(
                WireRouter.errorEnvelope(
                    id: envelope.id, OrderlyError(.invalidArgument, "unexpected frame type '\(envelope.type.rawValue)'")
                ))
        }
    }

    private func finish(_ frame: ByteBuffer) {
        inFlight -= 1
        if reading {
            // Answered within the read burst: `channelReadComplete` flushes them together.
            context?.write(wrapOutboundOut(frame), promise: nil)
        } else {
            context?.writeAndFlush(wrapOutboundOut(frame), promise: nil)
        }
        if draining && inFlight == 0 { lingerThenClose() }
    }

    /// Refusal of a request that arrives while the server drains: it was not run, so the client
    /// may send it elsewhere.
    static let drainingError = OrderlyError(.draining, "server is shutting down")

    /// How long a drained connection stays open, answering late requests with `drainingError`,
    /// so that a request already on its way is refused cleanly instead of meeting a reset.
    static let lingerTime = TimeAmount.milliseconds(100)

    private func lingerThenClose() {
        guard let context, lingerTimer == nil else { return }
        context.flush()
        let channel = context.channel
        lingerTimer = context.eventLoop.scheduleTask(in: Self.lingerTime) { channel.close(promise: nil) }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        reading = false
        context.flush()
        context.fireChannelReadComplete()
    }

    private func send(_ envelope: WireEnvelope) {
        guard let context else { return }
        let frame = wrapOutboundOut(envelope.encoded(allocator: context.channel.allocator))
        if reading {
            context.write(frame, promise: nil)
        } else {
            context.writeAndFlush(frame, promise: nil)
        }
    }

    /// Answers with an error frame, then closes the connection.
    private func fail(_ error: OrderlyError, id: UInt64) {
        guard let context else { return }
        state = .closing
        writeThenClose(WireRouter.errorEnvelope(id: id, error).encoded(allocator: context.channel.allocator))
    }

    /// Writes `frame` and everything before it, then closes the connection.
    private func writeThenClose(_ frame: ByteBuffer) {
        guard let context else { return }
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(frame)).whenComplete { _ in channel.close(promise: nil) }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if let failure = error as? WireProtocolError {
            logger.notice("closing connection after protocol error", metadata: ["error": "\(failure)"])
            fail(OrderlyError(.invalidArgument, failure.description), id: 0)
        } else {
            logger.debug("connection error", metadata: ["error": "\(error)"])
            context.close(promise: nil)
        }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        guard event is Drain else {
            context.fireUserInboundEventTriggered(event)
            return
        }
        draining = true
        if inFlight == 0 { lingerThenClose() }
    }
}
