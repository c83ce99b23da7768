public import Domain
import Foundation
public import Logging
import Metrics
public import NIOCore
public import NIOPosix
import Synchronization

/// Where a service listens.
public struct WireEndpoint: Hashable, Sendable, CustomStringConvertible {
    public var host: String
    public var port: Int

    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// Parses `host:port`; `nil` when it is not of that form.
    public init?(_ text: String) {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]),
            (1...65535).contains(port), colon > text.startIndex
        else { return nil }
        self.host = String(text[..<colon])
        self.port = port
    }

    public var description: String { "\(host):\(port)" }
}

/// Settings of a client pool.
public struct WireClientConfiguration: Sendable {
    /// The service this pool calls (for logs and errors).
    public var service: String
    /// Every address of the service; calls go round-robin over them.
    public var endpoints: [WireEndpoint]
    /// This process's service name, sent in the hello.
    public var callerService: String
    public var secret: WireSecret
    public var connectionsPerEndpoint: Int
    public var maximumFrameLength: Int
    public var connectTimeout: TimeAmount
    /// The deadline of a call that names none.
    public var defaultTimeout: TimeAmount
    /// Reconnect backoff: doubles from the first value up to the second after each failure.
    public var reconnectBackoff: (initial: TimeAmount, maximum: TimeAmount)
    /// How long an endpoint that failed is skipped while others are healthy.
    public var ejectionTime: TimeAmount
    /// Attempts per call, the first included, for calls that may be retried.
    public var maximumAttempts: Int
    /// TLS on every connection, when set.
    public var tls: WireTLS?

    public init(
        service: String, endpoints: [WireEndpoint], callerService: String, secret: WireSecret,
        connectionsPerEndpoint: Int = 2, maximumFrameLength: Int = WireDefaults.maximumFrameLength,
        connectTimeout: TimeAmount = .seconds(2), defaultTimeout: TimeAmount = .seconds(10),
        reconnectBackoff: (initial: TimeAmount, maximum: TimeAmount) = (.milliseconds(50), .seconds(2)),
        ejectionTime: TimeAmount = .seconds(5), maximumAttempts: Int = 3, tls: WireTLS? = nil
    ) {
        self.service = service
        self.endpoints = endpoints
        self.callerService = callerService
        self.secret = secret
        self.connectionsPerEndpoint = max(1, connectionsPerEndpoint)
        self.maximumFrameLength = maximumFrameLength
        self.connectTimeout = connectTimeout
        self.defaultTimeout = defaultTimeout
        self.reconnectBackoff = reconnectBackoff
        self.ejectionTime = ejectionTime
        self.maximumAttempts = max(1, maximumAttempts)
        self.tls = tls
    }
}

/// What a call carries besides its body.
public struct WireCallOptions: Sendable {
    /// How long the caller waits; the pool's default when `nil`.
    public var timeout: TimeAmount?
    public var principal: Principal?
    public var trace: String?
    /// Makes a write safe to retry: the server replays the first outcome for the same key.
    public var idempotencyKey: String?

    public init(
        timeout: TimeAmount? = nil, principal: Principal? = nil, trace: String? = nil, idempotencyKey: String? = nil
    ) {
        self.timeout = timeout
        self.principal = principal
        self.trace = trace
        self.idempotencyKey = idempotencyKey
    }
}

/// A pool of Wire connections to one service.
///
/// Connections are opened lazily and used round-robin, each carrying many calls at once. A
/// connection that fails is reopened with exponential backoff, and its endpoint is skipped for
/// `ejectionTime` while other endpoints are healthy. A call that failed before reaching the
/// server is retried on another connection; one that may have reached it is retried only when
/// the method is safe to repeat or the call carries an idempotency key.
public final class WireClient: WireCaller {
    public let configuration: WireClientConfiguration
    private let group: any EventLoopGroup
    private let logger: Logger
    private let state: Mutex<PoolState>
    private let retries: Counter
    private let ejections: Counter

    private enum SlotState {
        case idle
        case connecting(EventLoopFuture<WireConnection>)
        case ready(WireConnection)
    }

    private struct Slot {
        var endpoint: Int
        var state = SlotState.idle
        var backoff: TimeAmount = .zero
        var retryAfter = NIODeadline.uptimeNanoseconds(0)
    }

    private struct PoolState {
        var slots: [Slot]
        var ejectedUntil: [NIODeadline]
        var next = 0
        var closed = false
    }

    public init(
        configuration: WireClientConfiguration, group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        logger: Logger
    ) {
        self.configuration = configuration
        self.group = group
        var logger = logger
        logger[metadataKey: "wire.upstream"] = "\(configuration.service)"
        self.logger = logger
        var slots: [Slot] = []
        for _ in 0..<configuration.connectionsPerEndpoint {
            for endpoint in configuration.endpoints.indices { slots.append(Slot(endpoint: endpoint)) }
        }
        self.state = Mutex(
            PoolState(
                slots: slots,
                ejectedUntil: Array(repeating: .uptimeNanoseconds(0), count: configuration.endpoints.count)))
        self.retries = Counter(label: "wire_client_retries_total", dimensions: [("service", configuration.service)])
        self.ejections = Counter(label: "wire_client_ejections_total", dimensions: [("service", configuration.service)])
    }

    /// Calls `method` and decodes its response.
    public func call<Request, Response>(
        _ method: WireMethod<Request, Response>, _ request: Request, options: WireCallOptions
    ) async throws -> Response {
        let envelope = try method.requestEnvelope(request, options: options)
        let response = try await exchange(method, envelope, options: options)
        return try method.decodeResponse(response, from: configuration.service)
    }

    public func forward<Request, Response>(
        _ method: WireMethod<Request, Response>, json body: ByteBuffer, options: WireCallOptions
    ) async throws -> ByteBuffer {
        let envelope = try method.requestEnvelope(json: body, options: options)
        guard let body = try await exchange(method, envelope, options: options).body else {
            throw OrderlyError(.internal, "\(configuration.service) answered \(method.name) without a body")
        }
        return body
    }

    /// Sends a call, retrying when that is safe: always for reads, for writes when the call
    /// carries an idempotency key.
    private func exchange<Request, Response>(
        _ method: WireMethod<Request, Response>, _ envelope: WireEnvelope, options: WireCallOptions
    ) async throws -> WireEnvelope {
        let retryable = method.isSafeToRetry || options.idempotencyKey != nil
        return try await send(envelope, timeout: options.timeout, retryable: retryable)
    }

    /// Pings one connection of the pool (readiness checks).
    public func ping(timeout: TimeAmount = .seconds(1)) async throws {
        _ = try await send(WireEnvelope(type: .ping, id: 0), timeout: timeout, retryable: true)
    }

    private func send(_ envelope: WireEnvelope, timeout: TimeAmount?, retryable: Bool) async throws -> WireEnvelope {
        let deadline = NIODeadline.now() + (timeout ?? configuration.defaultTimeout)
        var attempt = 1
        while true {
            do {
                let (slot, connection) = try await acquire(deadline: deadline)
                do {
                    return try await connection.send(envelope, deadline: deadline)
                } catch let failure as WireTransportFailure {
                    connectionFailed(slot: slot, connection: connection)
                    throw failure
                } catch let error as OrderlyError where error.reason == WireServerHandler.drainingError.reason {
                    // That server is going away: stop using the connection.
                    connectionFailed(slot: slot, connection: connection)
                    await connection.close()
                    throw error
                }
            } catch let failure as WireTransportFailure {
                let mayRetry: Bool
                switch failure {
                case .notSent: mayRetry = true
                case .lostInFlight: mayRetry = retryable
                }
                guard mayRetry, attempt < configuration.maximumAttempts, NIODeadline.now() < deadline else {
                    throw failure.asOrderlyError
                }
            } catch let error as OrderlyError where error.code == .unavailable {
                // A draining server refused it unrun, so another replica may take it; any other
                // `unavailable` may come after the handler did something, so only when safe.
                let refusedUnrun = error.reason == WireServerHandler.drainingError.reason
                guard refusedUnrun || retryable, attempt < configuration.maximumAttempts, NIODeadline.now() < deadline
                else { throw error }
            }
            attempt += 1
            retries.increment()
            let pause = TimeAmount.milliseconds(Int64(5 * attempt + Int.random(in: 0...10)))
            try? await Task.sleep(nanoseconds: UInt64(pause.nanoseconds))
        }
    }

    /// Picks the next usable connection, opening one when needed, and waits out reconnect
    /// backoff while the deadline allows.
    private func acquire(deadline: NIODeadline) async throws -> (Int, WireConnection) {
        while true {
            if let found = try await acquireOnce(deadline: deadline) { return found }
        }
    }

    /// One look at the pool: a connection, or `nil` after waiting for a backoff to end.
    private func acquireOnce(deadline: NIODeadline) async throws -> (Int, WireConnection)? {
        enum Choice {
            case use(Int, WireConnection)
            /// Use a ready connection, and open one to an endpoint that has none beside it.
            case useAndOpen(Int, WireConnection, Int, EventLoopPromise<WireConnection>)
            case wait(Int, EventLoopFuture<WireConnection>)
            case connect(Int, EventLoopPromise<WireConnection>)
            case none(NIODeadline?)
        }
        let now = NIODeadline.now()
        let choice = state.withLock { pool -> Choice in
            guard !pool.closed else { return .none(nil) }
            let anyHealthy = pool.ejectedUntil.contains { $0 <= now }
            // Every endpoint gets a connection of its own as soon as calls come, so that calls
            // spread over every replica rather than staying on the first one opened.
            var served = Set<Int>()
            for slot in pool.slots {
                switch slot.state {
                case .ready, .connecting: served.insert(slot.endpoint)
                case .idle: break
                }
            }
            var ready: (Int, WireConnection)?
            var unserved: Int?
            var waitCandidate: (Int, EventLoopFuture<WireConnection>)?
            var connectCandidate: Int?
            var earliestRetry: NIODeadline?
            for step in 0..<pool.slots.count {
                let index = (pool.next + step) % pool.slots.count
                let slot = pool.slots[index]
                if anyHealthy && pool.ejectedUntil[slot.endpoint] > now { continue }
                switch slot.state {
                case .ready(let connection):
                    if ready == nil { ready = (index, connection) }
                case .connecting(let future):
                    if waitCandidate == nil { waitCandidate = (index, future) }
                case .idle:
                    if slot.retryAfter <= now {
                        if unserved == nil && !served.contains(slot.endpoint) { unserved = index }
                        if connectCandidate == nil { connectCandidate = index }
                    } else {
                        earliestRetry = min(earliestRetry ?? slot.retryAfter, slot.retryAfter)
                    }
                }
            }
            func startConnecting(_ index: Int) -> EventLoopPromise<WireConnection> {
                let promise = group.next().makePromise(of: WireConnection.self)
                pool.slots[index].state = .connecting(promise.futureResult)
                return promise
            }
            if let (index, connection) = ready {
                pool.next = (index + 1) % pool.slots.count
                if let other = unserved { return .useAndOpen(index, connection, other, startConnecting(other)) }
                return .use(index, connection)
            }
            if let index = unserved ?? connectCandidate {
                pool.next = (index + 1) % pool.slots.count
                return .connect(index, startConnecting(index))
            }
            if let (index, future) = waitCandidate { return .wait(index, future) }
            return .none(earliestRetry)
        }
        switch choice {
        case .use(let index, let connection):
            return (index, connection)
        case .useAndOpen(let index, let connection, let other, let promise):
            // The caller does not wait for the new connection, nor fail with it.
            Task { _ = try? await open(slot: other, promise) }
            return (index, connection)
        case .wait(let index, let future):
            return (index, try await future.get())
        case .connect(let index, let promise):
            return (index, try await open(slot: index, promise))
        case .none(let retryAt):
            guard let retryAt, retryAt < deadline else {
                throw WireTransportFailure.notSent("no connection to \(configuration.service) available")
            }
            try await Task.sleep(nanoseconds: UInt64(max(0, (retryAt - .now()).nanoseconds)))
            return nil
        }
    }

    /// Opens slot `index`'s connection, settling `promise` (which calls waiting on the slot hold).
    private func open(slot index: Int, _ promise: EventLoopPromise<WireConnection>) async throws -> WireConnection {
        let endpoint = configuration.endpoints[state.withLock { $0.slots[index].endpoint }]
        do {
            let connection = try await WireConnection.open(
                host: endpoint.host, port: endpoint.port, server: configuration.service,
                callerService: configuration.callerService,
                secret: configuration.secret, maximumFrameLength: configuration.maximumFrameLength,
                connectTimeout: configuration.connectTimeout, tls: configuration.tls, group: group)
            connected(slot: index, connection: connection)
            promise.succeed(connection)
            return connection
        } catch {
            connectFailed(slot: index, error: error)
            promise.fail(error)
            throw error
        }
    }

    private func connected(slot index: Int, connection: WireConnection) {
        let closed = state.withLock { pool -> Bool in
            guard !pool.closed else { return true }
            pool.slots[index].state = .ready(connection)
            pool.slots[index].backoff = .zero
            return false
        }
        if closed {
            Task { await connection.close() }
            return
        }
        connection.closeFuture.whenComplete { _ in self.connectionFailed(slot: index, connection: connection) }
    }

    private func connectFailed(slot index: Int, error: any Error) {
        let endpoint = state.withLock { pool -> WireEndpoint in
            markFailed(&pool, slot: index)
            return configuration.endpoints[pool.slots[index].endpoint]
        }
        logger.notice("cannot connect", metadata: ["net.peer": "\(endpoint)", "error": "\(error)"])
    }

    /// A connection closed or failed: reopen it later, and eject its endpoint for a while.
    private func connectionFailed(slot index: Int, connection: WireConnection) {
        state.withLock { pool in
            guard case .ready(let current) = pool.slots[index].state, current === connection else { return }
            markFailed(&pool, slot: index)
        }
    }

    private func markFailed(_ pool: inout PoolState, slot index: Int) {
        let now = NIODeadline.now()
        var slot = pool.slots[index]
        slot.state = .idle
        slot.backoff =
            slot.backoff == .zero
            ? configuration.reconnectBackoff.initial : min(slot.backoff * 2, configuration.reconnectBackoff.maximum)
        slot.retryAfter = now + slot.backoff
        pool.slots[index] = slot
        if pool.ejectedUntil[slot.endpoint] <= now && configuration.endpoints.count > 1 {
            pool.ejectedUntil[slot.endpoint] = now + configuration.ejectionTime
            ejections.increment()
        }
    }

    /// Closes every connection; later calls fail with `unavailable`.
    public func close() async {
        let open = state.withLock { pool -> [WireConnection] in
            pool.closed = true
            return pool.slots.compactMap { slot in
                if case .ready(let connection) = slot.state { return connection }
                return nil
            }
        }
        for connection in open { await connection.close() }
    }
}
