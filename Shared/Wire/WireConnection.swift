import Domain
import Foundation
public import NIOCore
public import NIOPosix
import Synchronization
public import WireCodec
public import WireContract

/// Why a call failed before the server could answer it: decides whether it may be retried.
enum WireTransportFailure: Error, Sendable {
    /// The request never left this process: always safe to try again elsewhere.
    case notSent(String)
    /// The connection dropped after the request was written: the server may have run it.
    case lostInFlight(String)

    var asOrderlyError: OrderlyError {
        switch self {
        case .notSent(let why), .lostInFlight(let why): return OrderlyError(.unavailable, why)
        }
    }
}

/// One client connection to a Wire server, with many requests in flight at once.
public final class WireConnection: Sendable {
    let channel: any Channel
    /// The service name the server announced in its hello.
    public let serverService: String
    private let maximumFrameLength: Int
    private let nextID = Atomic<UInt64>(1)

    private init(channel: any Channel, serverService: String, maximumFrameLength: Int) {
        self.channel = channel
        self.serverService = serverService
        self.maximumFrameLength = maximumFrameLength
    }

    /// Connects to the service `server` and proves to it that this is `callerService`
    /// (`WireHello`). Throws `OrderlyError`: `unavailable` when the server cannot be reached,
    /// `unauthenticated` when it refuses the hello.
    public static func connect(
        host: String, port: Int, server: String, callerService: String, secret: WireSecret,
        maximumFrameLength: Int = WireDefaults.maximumFrameLength, connectTimeout: TimeAmount = .seconds(2),
        tls: WireTLS? = nil, group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) async throws -> WireConnection {
        do {
            return try await open(
                host: host, port: port, server: server, callerService: callerService, secret: secret,
                maximumFrameLength: maximumFrameLength, connectTimeout: connectTimeout, tls: tls, group: group)
        } catch let failure as WireTransportFailure {
            throw failure.asOrderlyError
        }
    }

    /// `connect`, but failing with `WireTransportFailure.notSent` when no connection was made,
    /// which the pool treats as always safe to retry. With `address`, the connection goes to that
    /// address of `host` (one the pool resolved), and TLS still checks the certificate names `host`.
    static func open(
        host: String, address: String? = nil, port: Int, server: String, callerService: String, secret: WireSecret,
        maximumFrameLength: Int, connectTimeout: TimeAmount, tls: WireTLS?, group: any EventLoopGroup
    ) async throws -> WireConnection {
        let channel: any Channel
        let session = tls.map { _ in WireTLS.ClientSession(handshake: group.next().makePromise()) }
        do {
            channel = try await ClientBootstrap(group: group)
                .connectTimeout(connectTimeout)
                .channelOption(.tcpOption(.tcp_nodelay), value: 1)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        if let tls, let session {
                            try channel.pipeline.syncOperations.addHandlers(
                                try tls.clientHandlers(host: host, session: session, timeout: connectTimeout))
                        }
                        try channel.pipeline.syncOperations.addHandlers([
                            ByteToMessageHandler(
                                WireFrameDecoder(
                                    maximumFrameLength: maximumFrameLength, stallTimeout: connectTimeout * 5)),
                            MessageToByteHandler(WireFrameEncoder(maximumFrameLength: maximumFrameLength)),
                            WireClientHandler(),
                        ])
                    }
                }
                .connect(host: address ?? host, port: port).get()
        } catch {
            session?.handshake.fail(error)
            let peer = address.map { "\(host) at \($0)" } ?? host
            throw WireTransportFailure.notSent("cannot connect to \(peer):\(port): \(error)")
        }
        if let session {
            do {
                try await session.handshake.futureResult.get()
            } catch {
                channel.close(promise: nil)
                throw WireTransportFailure.notSent("TLS with \(host):\(port) failed: \(error)")
            }
        }
        let deadline = NIODeadline.now() + connectTimeout
        do {
            // The proof is for the service meant, whatever name the server gives, so a server
            // cannot relay it to another.
            let challenge = try await exchangeHello(
                WireHello(service: callerService), on: channel, deadline: deadline, host: host, port: port)
            guard let nonce = challenge.challenge else {
                throw OrderlyError(.unauthenticated, "\(host):\(port) sent no challenge")
            }
            guard let answer = WireHello.answer(caller: callerService, server: server, challenge: nonce, keys: secret)
            else { throw OrderlyError(.unauthenticated, "no Wire key for \(callerService)>\(server)") }
            let accepted = try await exchangeHello(answer, on: channel, deadline: deadline, host: host, port: port)
            return WireConnection(
                channel: channel, serverService: accepted.service, maximumFrameLength: maximumFrameLength)
        } catch {
            channel.close(promise: nil)
            if let refused = session?.failure.withLock({ $0 }) {
                throw WireTransportFailure.notSent("TLS with \(host):\(port) failed: \(refused)")
            }
            switch error {
            case let failure as WireTransportFailure:
                if case .lostInFlight(let why) = failure { throw WireTransportFailure.notSent(why) }
                throw failure
            case let failure as OrderlyError where failure.code == .deadlineExceeded:
                throw WireTransportFailure.notSent("no answer to the hello from \(host):\(port)")
            default:
                throw error
            }
        }
    }

    /// Sends one hello frame and returns the server's hello in answer.
    private static func exchangeHello(
        _ hello: WireHello, on channel: any Channel, deadline: NIODeadline, host: String, port: Int
    ) async throws -> WireHello {
        var body = channel.allocator.buffer(capacity: 256)
        body.writeBytes(try WireJSON.encoder.encode(hello))
        let promise = channel.eventLoop.makePromise(of: WireEnvelope.self)
        channel.writeAndFlush(
            WireClientHandler.Call(
                id: 0, frame: WireEnvelope(type: .hello, id: 0, body: body).encoded(allocator: channel.allocator),
                deadline: deadline, promise: promise)
        ).whenFailure { error in
            promise.fail(WireTransportFailure.notSent("hello not sent: \(error)"))
        }
        let answer = try await promise.futureResult.get()
        guard answer.type == .hello, let answerBody = answer.body,
            let hello = try? WireJSON.decode(WireHello.self, from: answerBody)
        else { throw answer.error ?? OrderlyError(.unauthenticated, "\(host):\(port) did not answer the hello") }
        return hello
    }

    /// Whether the connection is still open.
    public var isActive: Bool { channel.isActive }

    /// Completes when the connection has closed.
    public var closeFuture: EventLoopFuture<Void> { channel.closeFuture }

    /// Sends one request and waits for its response or error envelope (`id` is assigned here).
    /// Throws `OrderlyError` for an error envelope and `WireTransportFailure` when the
    /// connection fails; gives up with `deadline_exceeded` at `deadline`.
    func send(_ request: WireEnvelope, deadline: NIODeadline) async throws -> WireEnvelope {
        var request = request
        request.id = nextID.wrappingAdd(1, ordering: .relaxed).oldValue
        let remaining = (deadline - .now()).nanoseconds / 1_000_000
        guard remaining > 0 else { throw OrderlyError(.deadlineExceeded, "deadline passed before sending") }
        request.deadlineMilliseconds = remaining
        let frame = request.encoded(allocator: channel.allocator)
        guard frame.readableBytes <= maximumFrameLength else {
            throw OrderlyError(
                .invalidArgument,
                "request of \(frame.readableBytes) bytes exceeds the frame limit of \(maximumFrameLength)")
        }
        let promise = channel.eventLoop.makePromise(of: WireEnvelope.self)
        channel.writeAndFlush(
            WireClientHandler.Call(id: request.id, frame: frame, deadline: deadline, promise: promise)
        )
        .whenFailure { error in promise.fail(WireTransportFailure.notSent("\(error)")) }
        let response = try await promise.futureResult.get()
        if response.type == .error {
            throw response.error ?? OrderlyError(.internal, "error frame without an error")
        }
        return response
    }

    /// Calls `method` on this connection alone, without the pool's retries.
    public func call<Request, Response>(
        _ method: WireMethod<Request, Response>, _ request: Request, options: WireCallOptions = WireCallOptions()
    ) async throws -> Response {
        let envelope = try method.requestEnvelope(request, options: options)
        do {
            let response = try await send(envelope, deadline: .now() + (options.timeout ?? .seconds(10)))
            return try method.decodeResponse(response, from: serverService)
        } catch let failure as WireTransportFailure {
            throw failure.asOrderlyError
        }
    }

    /// Round trip of a `ping`; returns when the `pong` arrives.
    public func ping(timeout: TimeAmount = .seconds(1)) async throws {
        do {
            _ = try await send(WireEnvelope(type: .ping, id: 0), deadline: .now() + timeout)
        } catch let failure as WireTransportFailure {
            throw failure.asOrderlyError
        }
    }

    /// Closes the connection; requests still in flight fail.
    public func close() async {
        try? await channel.close()
    }
}

/// Matches responses to requests by id, fails calls whose deadline passed and fails everything
/// pending when the connection drops. Deadlines are checked by one sweep every 10 ms while calls
/// are pending, rather than a timer per call; flushes are grouped (`FlushGrouping`).
final class WireClientHandler: ChannelDuplexHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundIn = Call
    typealias OutboundOut = ByteBuffer

    struct Call {
        var id: UInt64
        var frame: ByteBuffer
        var deadline: NIODeadline
        var promise: EventLoopPromise<WireEnvelope>
    }

    private struct Pending {
        var promise: EventLoopPromise<WireEnvelope>
        var deadline: NIODeadline
    }

    static let sweepInterval = TimeAmount.milliseconds(10)

    private var pending: [UInt64: Pending] = [:]
    private var sweep: Scheduled<Void>?
    private let flushes = FlushGrouping()

    func handlerRemoved(context: ChannelHandlerContext) {
        sweep?.cancel()
        sweep = nil
        failAll(WireTransportFailure.lostInFlight("connection closed"))
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let call = unwrapOutboundIn(data)
        pending[call.id] = Pending(promise: call.promise, deadline: call.deadline)
        armSweep(context: context)
        context.write(wrapOutboundOut(call.frame), promise: promise)
    }

    func flush(context: ChannelHandlerContext) {
        flushes.flushRequested(context: context, outstanding: pending.count)
    }

    private func armSweep(context: ChannelHandlerContext) {
        guard sweep == nil, !pending.isEmpty else { return }
        let bound = NIOLoopBound((handler: self, context: context), eventLoop: context.eventLoop)
        sweep = context.eventLoop.scheduleTask(in: Self.sweepInterval) {
            let (handler, context) = bound.value
            handler.sweep = nil
            handler.failExpired()
            handler.armSweep(context: context)
        }
    }

    private func failExpired() {
        let now = NIODeadline.now()
        let expired = pending.filter { $0.value.deadline <= now }
        for (id, entry) in expired {
            pending[id] = nil
            entry.promise.fail(OrderlyError(.deadlineExceeded, "no answer before the deadline"))
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let envelope: WireEnvelope
        do {
            envelope = try WireEnvelope.parse(unwrapInboundIn(data))
        } catch {
            // A server that sends garbage cannot be trusted with the rest of this connection.
            failAll(WireTransportFailure.lostInFlight("unreadable frame from server: \(error.error)"))
            context.close(promise: nil)
            return
        }
        if let entry = pending.removeValue(forKey: envelope.id) {
            entry.promise.succeed(envelope)
        } else if envelope.type == .error, let error = envelope.error {
            // A connection-level error (id 0 that matches nothing): the server is closing.
            failAll(error)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        failAll(WireTransportFailure.lostInFlight("connection closed"))
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        failAll(WireTransportFailure.lostInFlight("connection failed: \(error)"))
        context.close(promise: nil)
    }

    private func failAll(_ error: any Error) {
        let entries = pending
        pending = [:]
        for entry in entries.values { entry.promise.fail(error) }
    }
}
