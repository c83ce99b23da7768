public import Domain
import Events
import Foundation
public import Logging
import Metrics
public import NIOCore
public import NIOPosix
import Synchronization
public import WireCodec
public import WireContract

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
    /// Where the service listens: addresses, or names that stand for every replica's address.
    /// Calls go round-robin over every address they come to.
    public var endpoints: [WireEndpoint]
    /// Finds the addresses behind a name.
    public var resolver: HostResolver
    /// How often names are resolved again, so that replicas that come are used and replicas that
    /// go are dropped (and sooner after a connection to one fails).
    public var resolveInterval: TimeAmount
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
        ejectionTime: TimeAmount = .seconds(5), maximumAttempts: Int = 3, tls: WireTLS? = nil,
        resolver: HostResolver = .system, resolveInterval: TimeAmount = .seconds(10)
    ) {
        self.service = service
        self.endpoints = endpoints
        self.resolver = resolver
        self.resolveInterval = resolveInterval
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
/// Each endpoint named is resolved to all its addresses (a name with one record per replica
/// spreads calls over every replica), again every `resolveInterval` while calls come: an
/// address that appears gets connections, and the connections of one that went are closed.
/// Connections are opened lazily and used round-robin, each carrying many calls at once. A
/// connection that fails is reopened with exponential backoff, and its address is skipped for
/// `ejectionTime` while other addresses are healthy. A call that failed before reaching the
/// server is retried on another connection; one that may have reached it is retried only when
/// the method is safe to repeat or the call carries an idempotency key.
public final class WireClient: WireCaller {
    public let configuration: WireClientConfiguration
    private let group: any EventLoopGroup
    private let logger: Logger
    private let state: Mutex<PoolState>
    private let retries: Counter
    private let ejections: Counter
    private let calls: WireCallMetrics

    private enum SlotState {
        case idle
        case connecting(EventLoopFuture<WireConnection>)
        case ready(WireConnection)
    }

    /// One address of one endpoint.
    private struct Target: Hashable {
        var endpoint: Int
        var address: String
    }

    private struct Slot {
        /// Stays the slot's while slots come and go with the addresses.
        var id: Int
        var target: Target
        /// The same for every slot of the target (cheaper to compare on each call than the target).
        var targetID: Int
        /// Until when the target is skipped while others are healthy; alike on all its slots.
        var ejectedUntil = NIODeadline.uptimeNanoseconds(0)
        var state = SlotState.idle
        var backoff: TimeAmount = .zero
        var retryAfter = NIODeadline.uptimeNanoseconds(0)
    }

    private struct PoolState {
        var slots: [Slot] = []
        /// Each endpoint's addresses as last resolved (kept when a resolution fails).
        var addresses: [[String]]
        var resolved = false
        var resolveDue = NIODeadline.uptimeNanoseconds(0)
        var resolving: Task<Void, Never>?
        var nextID = 0
        var next = 0
        var closed = false

        func index(of slot: Int) -> Int? { slots.firstIndex { $0.id == slot } }
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
        self.state = Mutex(PoolState(addresses: Array(repeating: [], count: configuration.endpoints.count)))
        self.retries = Counter(
            label: "orderly_wire_client_retries_total", dimensions: [("service", configuration.service)])
        self.ejections = Counter(
            label: "orderly_wire_client_ejections_total", dimensions: [("service", configuration.service)])
        self.calls = WireCallMetrics(service: configuration.service)
    }

    /// Calls `method` and decodes its response.
    public func call<Request, Response>(
        _ method: WireMethod<Request, Response>, _ request: Request, options: WireCallOptions
    ) async throws -> Response {
        try await calls.measure(method.name) {
            try await traced(method.name, options) { options in
                let envelope = try method.requestEnvelope(request, options: options)
                let response = try await exchange(method, envelope, options: options)
                return try method.decodeResponse(response, from: configuration.service)
            }
        }
    }

    public func forward<Request, Response>(
        _ method: WireMethod<Request, Response>, json body: ByteBuffer, options: WireCallOptions
    ) async throws -> ByteBuffer {
        try await calls.measure(method.name) {
            try await traced(method.name, options) { options in
                let envelope = try method.requestEnvelope(json: body, options: options)
                guard let body = try await exchange(method, envelope, options: options).body else {
                    throw OrderlyError(.internal, "\(configuration.service) answered \(method.name) without a body")
                }
                return body
            }
        }
    }

    /// Runs a call in a client span when tracing is on, its context in the envelope's `trace`;
    /// off, the call carries the `traceparent` it was given.
    private func traced<Result>(
        _ method: String, _ options: WireCallOptions, _ call: (WireCallOptions) async throws -> Result
    ) async throws -> Result {
        guard TraceContext.isEnabled else { return try await call(options) }
        return try await TraceContext.span(
            method, kind: .client,
            attributes: {
                $0["rpc.system"] = "orderly-wire"
                $0["rpc.service"] = configuration.service
                $0["rpc.method"] = method
            }
        ) {
            var options = options
            options.trace = TraceContext.current() ?? options.trace
            return try await call(options)
        }
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
        if let first = resolveIfDue() { await first.value }
        while true {
            if let found = try await acquireOnce(deadline: deadline) { return found }
        }
    }

    /// Starts resolving the endpoints again when that is due; returns the resolution to wait
    /// for when there has been none yet.
    private func resolveIfDue() -> Task<Void, Never>? {
        let now = NIODeadline.now()
        return state.withLock { pool -> Task<Void, Never>? in
            guard !pool.closed else { return nil }
            if pool.resolving == nil, pool.resolveDue <= now {
                pool.resolving = Task { await self.resolve() }
            }
            return pool.resolved ? nil : pool.resolving
        }
    }

    /// Resolves every endpoint and brings the slots in line: `connectionsPerEndpoint` for each
    /// address, none for one that is gone (its connections are closed).
    private func resolve() async {
        var found: [[String]?] = []
        for endpoint in configuration.endpoints {
            do {
                let addresses = try await configuration.resolver.addresses(endpoint.host)
                found.append(addresses.isEmpty ? nil : addresses)
            } catch {
                logger.warning("cannot resolve", metadata: ["net.peer.name": "\(endpoint.host)", "error": "\(error)"])
                found.append(nil)
            }
        }
        let now = NIODeadline.now()
        let (gone, changes) = state.withLock { pool -> ([WireConnection], [(String, [String])]) in
            pool.resolving = nil
            pool.resolved = true
            pool.resolveDue = now + configuration.resolveInterval
            guard !pool.closed else { return ([], []) }
            var changes: [(String, [String])] = []
            for (endpoint, addresses) in found.enumerated() {
                // A name that does not resolve now keeps the addresses it had.
                guard let addresses, addresses != pool.addresses[endpoint] else { continue }
                pool.addresses[endpoint] = addresses
                changes.append((configuration.endpoints[endpoint].description, addresses))
            }
            var targets: [Target] = []
            for (endpoint, addresses) in pool.addresses.enumerated() {
                for address in addresses { targets.append(Target(endpoint: endpoint, address: address)) }
            }
            let wanted = Set(targets)
            var gone: [WireConnection] = []
            pool.slots.removeAll { slot in
                guard !wanted.contains(slot.target) else { return false }
                if case .ready(let connection) = slot.state { gone.append(connection) }
                return true
            }
            let present = Set(pool.slots.map(\.target))
            for target in targets where !present.contains(target) {
                let targetID = pool.nextID
                pool.nextID += 1
                for _ in 0..<configuration.connectionsPerEndpoint {
                    pool.slots.append(Slot(id: pool.nextID, target: target, targetID: targetID))
                    pool.nextID += 1
                }
            }
            // Nothing to call yet: try again soon rather than a whole interval later.
            if targets.isEmpty { pool.resolveDue = now + .seconds(1) }
            return (gone, changes)
        }
        for (endpoint, addresses) in changes {
            logger.info(
                "addresses of the service",
                metadata: ["net.peer.name": "\(endpoint)", "net.peer.addresses": "\(addresses.joined(separator: ","))"])
        }
        for connection in gone { await connection.close() }
    }

    /// One look at the pool: a connection (with its slot's id), or `nil` after waiting for a
    /// backoff to end.
    private func acquireOnce(deadline: NIODeadline) async throws -> (Int, WireConnection)? {
        enum Choice {
            case use(Int, WireConnection)
            /// Use a ready connection, and open one to an address that has none beside it.
            case useAndOpen(Int, WireConnection, Int, EventLoopPromise<WireConnection>)
            case wait(Int, EventLoopFuture<WireConnection>)
            case connect(Int, EventLoopPromise<WireConnection>)
            case none(NIODeadline?)
        }
        let now = NIODeadline.now()
        let choice = state.withLock { pool -> Choice in
            guard !pool.closed else { return .none(nil) }
            let anyHealthy = pool.slots.contains { $0.ejectedUntil <= now }
            // Every address gets a connection of its own as soon as calls come, so that calls
            // spread over every replica rather than staying on the first one opened.
            var served = Set<Int>()
            for slot in pool.slots {
                switch slot.state {
                case .ready, .connecting: served.insert(slot.targetID)
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
                if anyHealthy && slot.ejectedUntil > now { continue }
                switch slot.state {
                case .ready(let connection):
                    if ready == nil { ready = (index, connection) }
                case .connecting(let future):
                    if waitCandidate == nil { waitCandidate = (slot.id, future) }
                case .idle:
                    if slot.retryAfter <= now {
                        if unserved == nil && !served.contains(slot.targetID) { unserved = index }
                        if connectCandidate == nil { connectCandidate = index }
                    } else {
                        earliestRetry = min(earliestRetry ?? slot.retryAfter, slot.retryAfter)
                    }
                }
            }
            func startConnecting(_ index: Int) -> (Int, EventLoopPromise<WireConnection>) {
                let promise = group.next().makePromise(of: WireConnection.self)
                pool.slots[index].state = .connecting(promise.futureResult)
                return (pool.slots[index].id, promise)
            }
            if let (index, connection) = ready {
                pool.next = (index + 1) % pool.slots.count
                if let other = unserved {
                    let (id, promise) = startConnecting(other)
                    return .useAndOpen(pool.slots[index].id, connection, id, promise)
                }
                return .use(pool.slots[index].id, connection)
            }
            if let index = unserved ?? connectCandidate {
                pool.next = (index + 1) % pool.slots.count
                let (id, promise) = startConnecting(index)
                return .connect(id, promise)
            }
            if let (id, future) = waitCandidate { return .wait(id, future) }
            return .none(earliestRetry)
        }
        switch choice {
        case .use(let slot, let connection):
            return (slot, connection)
        case .useAndOpen(let slot, let connection, let other, let promise):
            // The caller does not wait for the new connection, nor fail with it.
            Task { _ = try? await open(slot: other, promise) }
            return (slot, connection)
        case .wait(let slot, let future):
            return (slot, try await future.get())
        case .connect(let slot, let promise):
            return (slot, try await open(slot: slot, promise))
        case .none(let retryAt):
            guard let retryAt, retryAt < deadline else {
                let why = state.withLock { $0.slots.isEmpty } ? "no address of" : "no connection to"
                throw WireTransportFailure.notSent("\(why) \(configuration.service) available")
            }
            try await Task.sleep(nanoseconds: UInt64(max(0, (retryAt - .now()).nanoseconds)))
            return nil
        }
    }

    /// Opens slot `id`'s connection, settling `promise` (which calls waiting on the slot hold).
    private func open(slot id: Int, _ promise: EventLoopPromise<WireConnection>) async throws -> WireConnection {
        guard let target = state.withLock({ pool in pool.index(of: id).map { pool.slots[$0].target } }) else {
            let failure = WireTransportFailure.notSent("that address of \(configuration.service) is gone")
            promise.fail(failure)
            throw failure
        }
        let endpoint = configuration.endpoints[target.endpoint]
        do {
            let connection = try await WireConnection.open(
                host: endpoint.host, address: target.address, port: endpoint.port, server: configuration.service,
                callerService: configuration.callerService,
                secret: configuration.secret, maximumFrameLength: configuration.maximumFrameLength,
                connectTimeout: configuration.connectTimeout, tls: configuration.tls, group: group)
            connected(slot: id, connection: connection)
            promise.succeed(connection)
            return connection
        } catch {
            connectFailed(slot: id, error: error)
            promise.fail(error)
            throw error
        }
    }

    private func connected(slot id: Int, connection: WireConnection) {
        let keep = state.withLock { pool -> Bool in
            guard !pool.closed, let index = pool.index(of: id) else { return false }
            pool.slots[index].state = .ready(connection)
            pool.slots[index].backoff = .zero
            return true
        }
        guard keep else {
            // The pool closed, or the address went, while it connected.
            Task { await connection.close() }
            return
        }
        connection.closeFuture.whenComplete { _ in self.connectionFailed(slot: id, connection: connection) }
    }

    private func connectFailed(slot id: Int, error: any Error) {
        let target = state.withLock { pool -> Target? in
            guard let index = pool.index(of: id) else { return nil }
            markFailed(&pool, slot: index)
            return pool.slots[index].target
        }
        guard let target else { return }
        let endpoint = configuration.endpoints[target.endpoint]
        logger.notice(
            "cannot connect",
            metadata: ["net.peer": "\(endpoint)", "net.peer.address": "\(target.address)", "error": "\(error)"])
    }

    /// A connection closed or failed: reopen it later, and eject its address for a while.
    private func connectionFailed(slot id: Int, connection: WireConnection) {
        state.withLock { pool in
            guard let index = pool.index(of: id), case .ready(let current) = pool.slots[index].state,
                current === connection
            else { return }
            markFailed(&pool, slot: index)
        }
    }

    /// Marks a slot failed: it reconnects after its backoff, its address is skipped for a while
    /// when there are others, and the names are resolved again soon (a replica that went away
    /// leaves its name's records).
    private func markFailed(_ pool: inout PoolState, slot index: Int) {
        let now = NIODeadline.now()
        var slot = pool.slots[index]
        slot.state = .idle
        slot.backoff =
            slot.backoff == .zero
            ? configuration.reconnectBackoff.initial : min(slot.backoff * 2, configuration.reconnectBackoff.maximum)
        slot.retryAfter = now + slot.backoff
        pool.slots[index] = slot
        if slot.ejectedUntil <= now && pool.slots.contains(where: { $0.targetID != slot.targetID }) {
            for other in pool.slots.indices where pool.slots[other].targetID == slot.targetID {
                pool.slots[other].ejectedUntil = now + configuration.ejectionTime
            }
            ejections.increment()
        }
        pool.resolveDue = min(pool.resolveDue, now + .seconds(1))
    }

    /// The addresses calls go to now (`address:port`), as last resolved.
    var addresses: [String] {
        state.withLock { pool in
            Set(pool.slots.map { "\($0.target.address):\(configuration.endpoints[$0.target.endpoint].port)" }).sorted()
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
