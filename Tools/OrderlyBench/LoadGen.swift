import ArgumentParser
import AsyncHTTPClient
import Contracts
import Domain
import Foundation
import Histogram
import NIOCore
import NIOHTTP1
import Synchronization

/// `orderly loadgen`: drives a running suite through its public API the way stores and couriers
/// do, then checks that nothing was lost or doubled.
///
/// Three phases with the same clients: the ceiling (`GET /v1/me`, the gateway's cheapest
/// authenticated route), order creation alone, and the mix (creations, a share of them sent
/// again with the same `Idempotency-Key`, lines added, statuses advanced, couriers racing to
/// claim, long-polls). Then the invariants are checked against the API, and throughput and
/// latency percentiles are printed per operation. Exits 1 when an invariant fails.
struct LoadGen: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "loadgen",
        abstract: "Drive a running Orderly suite like its apps do and check the invariants afterwards.")

    @Option(help: "The gateway's base URL.")
    var url = "http://127.0.0.1:8080"

    @Option(help: "An admin's e-mail (sets up stores and users).")
    var adminEmail = "admin@orderly.local"

    @Option(help: "Environment variable holding the admin's password.")
    var adminPasswordVariable = "ORDERLY_BOOTSTRAP_ADMIN_PASSWORD"

    @Option(help: "Stores to create, each with one staff member.")
    var stores = 4

    @Option(help: "Couriers to create and put on duty.")
    var couriers = 8

    @Option(
        help:
            "What to drive: orders (creation, the mix, couriers), catalog (reservations), pos (payments), notifications (streams and long-polls) or marketplace (customers check out and pay, stores and couriers serve them)."
    )
    var workload: Workload = .orders

    @Option(help: "Store users signed in and listening (notifications workload).")
    var users = 1000

    @Option(help: "Orders created a second (notifications workload).")
    var rate = 20

    @Option(help: "Stores given a webhook endpoint on a receiver that loadgen runs (notifications workload).")
    var webhooks = 0

    @Option(help: "Concurrent clients (each with its own keep-alive connection).")
    var clients = 64

    @Option(help: "Seconds each phase runs.")
    var seconds: Double = 15

    @Option(help: "Stop the mix after this many operations (instead of after --seconds).")
    var count: Int?

    @Option(help: "Share of created orders sent a second time with the same Idempotency-Key.")
    var retryShare = 0.1

    @Option(help: "Seconds to wait for every order's notification to reach its store's inbox.")
    var inboxWait: Double = 120

    @Option(help: "The suite's processes as name:pid pairs, to report their CPU per created order.")
    var processes = ProcessInfo.processInfo.environment["ORDERLY_PROCESSES"] ?? ""

    @Option(
        help: "A shell command run while orders are created, stopped with SIGINT when that phase ends (a profiler).")
    var duringCreation: String?

    func validate() throws {
        guard (1...100).contains(stores) else { throw ValidationError("--stores must be from 1 to 100") }
        guard (1...1000).contains(couriers) else { throw ValidationError("--couriers must be from 1 to 1000") }
        guard (2...10_000).contains(users) else { throw ValidationError("--users must be from 2 to 10000") }
        guard (1...1000).contains(rate) else { throw ValidationError("--rate must be from 1 to 1000") }
        guard (0...stores).contains(webhooks) else { throw ValidationError("--webhooks must be from 0 to --stores") }
        guard (2...1024).contains(clients) else { throw ValidationError("--clients must be from 2 to 1024") }
        guard seconds > 0, seconds <= 3600 else { throw ValidationError("--seconds must be from 0 to 3600") }
        guard count.map({ $0 > 0 }) ?? true else { throw ValidationError("--count must be positive") }
        guard (0...1).contains(retryShare) else { throw ValidationError("--retry-share must be from 0 to 1") }
        guard URL(string: url)?.host != nil else { throw ValidationError("--url must be an http URL") }
        guard ProcessInfo.processInfo.environment[adminPasswordVariable] != nil else {
            throw ValidationError("set \(adminPasswordVariable) to the admin's password")
        }
    }

    func run() async throws {
        var configuration = HTTPClient.Configuration()
        // Each listener of the notifications workload holds a connection of its own.
        let connections = (workload == .notifications ? users : 0) + clients + 16
        configuration.connectionPool = .init(
            idleTimeout: .seconds(120), concurrentHTTP1ConnectionsPerHostSoftLimit: connections)
        configuration.timeout = .init(connect: .seconds(10), read: .seconds(60))
        let http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        do {
            let api = API(http: http, base: url.hasSuffix("/") ? String(url.dropLast()) : url)
            let failures =
                switch workload {
                case .orders: try await drive(api)
                case .catalog: try await driveCatalog(api)
                case .pos: try await drivePayments(api)
                case .notifications: try await driveNotifications(api)
                case .marketplace: try await driveMarketplace(api)
                }
            try await http.shutdown()
            if failures > 0 { throw ExitCode(1) }
        } catch {
            try? await http.shutdown()
            throw error
        }
    }

    private func drive(_ api: API) async throws -> Int {
        let password = ProcessInfo.processInfo.environment[adminPasswordVariable]!
        say("setting up \(stores) stores with a staff member each and \(couriers) couriers on duty")
        let cast = try await Cast.create(api, admin: adminEmail, password: password, stores: stores, couriers: couriers)
        let ledger = Ledger()
        var report = Report()

        say("phase 1/3: the ceiling, GET /v1/me, \(clients) clients, \(seconds)s")
        let ceiling = try await phase("ceiling", cast: cast) { worker, stats in
            try await stats.time("GET /v1/me") { try await api.send(.GET, "/v1/me", token: worker.staff) }
        }
        report.add(ceiling)

        say("phase 2/3: order creation, \(clients) clients, \(seconds)s")
        let suite = ProcessCPUTimes.parse(processes)
        let cpuBefore = ProcessCPUTimes.now(suite)
        let observer = try duringCreation.map { command in
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", command]
            try process.run()
            return process
        }
        let creation = try await phase("creation", cast: cast) { worker, stats in
            try await worker.create(api, ledger: ledger, stats: &stats, retry: false)
        }
        let cpuAfter = ProcessCPUTimes.now(suite)
        if let observer {
            observer.interrupt()
            observer.waitUntilExit()
        }
        report.add(creation)
        let created = Int(creation.histograms["POST /v1/orders"]?.totalCount ?? 0)
        let createCPU = cpuBefore.perOperation(until: cpuAfter, operations: created)
        if !suite.isEmpty {
            let each = createCPU.each.map { String(format: "%@ %.3f", $0.0, $0.1) }.joined(separator: ", ")
            say(String(format: "  CPU per created order: %.3f ms (", createCPU.total) + each + ")")
            say(
                "  load generator: "
                    + cpuBefore.machine.report(until: cpuAfter.machine, operations: created, unit: "order"))
        }

        say("phase 3/3: the mix, \(clients) clients, \(count.map { "\($0) operations" } ?? "\(seconds)s")")
        let mix = try await phase("mix", cast: cast, limit: count) { worker, stats in
            try await worker.mixStep(api, ledger: ledger, stats: &stats, retryShare: retryShare)
        }
        report.add(mix)

        say("checking the invariants")
        let outcome = try await Invariants(api: api, cast: cast, ledger: ledger, inboxWait: inboxWait).check()
        let failures = outcome.failures
        for failure in failures.prefix(20) { say("  FAILED: \(failure)") }
        if failures.count > 20 { say("  … and \(failures.count - 20) more") }
        if failures.isEmpty { say("  every invariant holds") }

        report.print()
        let createRate = creation.rate("POST /v1/orders")
        let ceilingRate = ceiling.rate("GET /v1/me")
        let p99 = creation.histograms["POST /v1/orders"].map { Double($0.valueAtPercentile(99)) / 1000 } ?? 0
        say(
            String(
                format:
                    "create_rps=%.0f ceiling_rps=%.0f ratio=%.3f create_p99_ms=%.1f create_cpu_ms=%.3f invariant_failures=%d",
                createRate, ceilingRate, ceilingRate > 0 ? createRate / ceilingRate : 0, p99, createCPU.total,
                failures.count))
        say(
            "acked=\(ledger.orders.count) lost=\(outcome.lost) duplicated=\(outcome.duplicated) notifications_missing=\(outcome.notificationsMissing) errors_5xx=\([ceiling, creation, mix].map(\.serverErrors).reduce(0, +))"
        )
        return failures.count
    }

    /// Runs `step` in a loop on every client until the phase's time (or `limit` steps) is up,
    /// with a progress line every two seconds.
    func phase(
        _ name: String, cast: Cast, limit: Int? = nil,
        _ step: @escaping @Sendable (Worker, inout Stats) async throws -> Void
    ) async throws -> PhaseResult {
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        let counters = Counters()
        let started = ContinuousClock.now
        let progress = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(2))
                if Task.isCancelled { break }
                let elapsed = (ContinuousClock.now - started).timeInterval
                let done = counters.steps.load(ordering: .relaxed)
                say(
                    String(
                        format: "  %@ %.0fs: %d operations (%.0f/s), %d unexpected answers", name, elapsed, done,
                        Double(done) / elapsed, counters.errors.load(ordering: .relaxed)))
            }
        }
        defer { progress.cancel() }
        let clients = self.clients
        let results = try await withThrowingTaskGroup(of: Stats.self) { group in
            for index in 0..<clients {
                let worker = cast.worker(index)
                group.addTask {
                    var stats = Stats()
                    while ContinuousClock.now < deadline {
                        if let limit, counters.steps.add(1, ordering: .relaxed).newValue > limit { break }
                        let before = stats.unexpected
                        try await step(worker, &stats)
                        if limit == nil { counters.steps.add(1, ordering: .relaxed) }
                        if stats.unexpected > before {
                            counters.errors.add(stats.unexpected - before, ordering: .relaxed)
                        }
                    }
                    return stats
                }
            }
            var all = Stats()
            for try await stats in group { all.merge(stats) }
            return all
        }
        return PhaseResult(
            name: name, duration: (ContinuousClock.now - started).timeInterval, histograms: results.histograms,
            unexpected: results.unexpectedByOperation, serverErrors: results.serverErrors)
    }
}

/// What `orderly loadgen` drives.
enum Workload: String, ExpressibleByArgument, CaseIterable {
    case orders, catalog, pos, notifications, marketplace
}

/// Operations done and unexpected answers so far in a phase, for its progress line.
final class Counters: Sendable {
    let steps = Atomic<Int>(0)
    let errors = Atomic<Int>(0)
}

// MARK: - HTTP

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

struct LoadGenError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

// MARK: - Who takes part

/// The stores, their staff and the couriers the run created.
struct Cast: Sendable {
    var admin: String
    var stores: [StoreID]
    /// One staff token per store.
    var staff: [String]
    /// The staff member of each store, whose inbox must hear of every order.
    var staffIDs: [UserID]
    var couriers: [String]
    var courierIDs: [UserID]

    struct Tokens: Decodable {
        var accessToken: String
        enum CodingKeys: String, CodingKey { case accessToken = "access_token" }
    }
    struct Created: Decodable { var id: String }

    static func create(_ api: API, admin email: String, password: String, stores: Int, couriers: Int) async throws
        -> Cast
    {
        let run = UUID().uuidString.prefix(8).lowercased()
        let admin = try await login(api, email, password)
        var cast = Cast(admin: admin, stores: [], staff: [], staffIDs: [], couriers: [], courierIDs: [])
        for index in 0..<stores {
            let store = try await api.require(
                [201], .POST, "/v1/stores", token: admin, body: ["name": "Loadgen \(run) store \(index + 1)"]
            ).decode(Created.self)
            let staffEmail = "loadgen-\(run)-staff-\(index)@orderly.test"
            let user = try await api.require(
                [201], .POST, "/v1/users", token: admin,
                body: [
                    "email": staffEmail, "password": "loadgen-password", "name": "Staff \(index)", "role": "staff",
                    "store_id": store.id,
                ]
            ).decode(Created.self)
            cast.stores.append(StoreID(store.id)!)
            cast.staffIDs.append(UserID(user.id)!)
            cast.staff.append(try await login(api, staffEmail, "loadgen-password"))
        }
        for index in 0..<couriers {
            let courierEmail = "loadgen-\(run)-courier-\(index)@orderly.test"
            let user = try await api.require(
                [201], .POST, "/v1/users", token: admin,
                body: [
                    "email": courierEmail, "password": "loadgen-password", "name": "Courier \(index)",
                    "role": "courier",
                ]
            ).decode(Created.self)
            let token = try await login(api, courierEmail, "loadgen-password")
            _ = try await api.require(
                [200], .PUT, "/v1/couriers/me/availability", token: token, body: ["on_duty": true])
            cast.couriers.append(token)
            cast.courierIDs.append(UserID(user.id)!)
        }
        return cast
    }

    static func login(_ api: API, _ email: String, _ password: String) async throws -> String {
        try await api.require([200], .POST, "/v1/auth/login", body: ["email": email, "password": password])
            .decode(Tokens.self).accessToken
    }

    /// Client `index`: three in four act as store staff, the rest as couriers.
    func worker(_ index: Int) -> Worker {
        let store = index % stores.count
        let courier = index % 4 == 3 ? index / 4 % couriers.count : nil
        return Worker(
            index: index, store: store, staff: staff[store], courier: courier,
            courierToken: courier.map { couriers[$0] })
    }
}

// MARK: - What each client does

/// What the run has learnt for the invariants: every order acknowledged, every creation whose
/// answer was lost, every claim won.
final class Ledger: Sendable {
    struct Acknowledged: Sendable {
        var store: Int
        var boxes: Int
        var fulfillment: Fulfillment
    }

    private let state = Mutex<
        (
            orders: [OrderID: Acknowledged], uncertain: [Int: Int], claims: [OrderID: Set<Int>],
            replayMismatches: [String]
        )
    >(([:], [:], [:], []))

    func acknowledged(_ id: OrderID, _ order: Acknowledged) { state.withLock { $0.orders[id] = order } }
    func uncertain(store: Int) { state.withLock { $0.uncertain[store, default: 0] += 1 } }
    func claimed(_ id: OrderID, by courier: Int) { state.withLock { _ = $0.claims[id, default: []].insert(courier) } }
    func replayMismatch(_ what: String) { state.withLock { $0.replayMismatches.append(what) } }

    var orders: [OrderID: Acknowledged] { state.withLock { $0.orders } }
    var uncertain: [Int: Int] { state.withLock { $0.uncertain } }
    var claims: [OrderID: Set<Int>] { state.withLock { $0.claims } }
    var replayMismatches: [String] { state.withLock { $0.replayMismatches } }
}

/// Latencies per operation (microseconds) and the answers nobody should get.
struct Stats: Sendable {
    var histograms: [String: Histogram<UInt64>] = [:]
    var unexpectedByOperation: [String: Int] = [:]
    /// Answers of status 500 and above.
    var serverErrors = 0
    var unexpected: Int { unexpectedByOperation.values.reduce(0, +) }

    /// Times `body`; an answer outside `expected` (2xx by default) counts as unexpected.
    @discardableResult
    mutating func time(_ operation: String, expected: Set<Int>? = nil, _ body: () async throws -> API.Reply)
        async throws -> API.Reply?
    {
        let start = ContinuousClock.now
        let reply: API.Reply
        do {
            reply = try await body()
        } catch {
            unexpectedByOperation[operation, default: 0] += 1
            return nil
        }
        let micros = UInt64(max(1, (ContinuousClock.now - start).timeInterval * 1_000_000))
        histograms[
            operation, default: Histogram(highestTrackableValue: 120_000_000, numberOfSignificantValueDigits: .three)
        ]
        .record(micros)
        if reply.status >= 500 { serverErrors += 1 }
        if !(expected?.contains(reply.status) ?? (200..<300).contains(reply.status)) {
            unexpectedByOperation[operation, default: 0] += 1
        }
        return reply
    }

    mutating func merge(_ other: Stats) {
        for (name, histogram) in other.histograms {
            if histograms[name] == nil { histograms[name] = histogram } else { histograms[name]!.add(histogram) }
        }
        unexpectedByOperation.merge(other.unexpectedByOperation, uniquingKeysWith: +)
        serverErrors += other.serverErrors
    }
}

/// One client: a store's staff member, or a courier (who also reads as the store's staff for
/// the ceiling and creation phases, so every client does the same work there).
final class Worker: Sendable {
    let index: Int
    let store: Int
    let staff: String
    let courier: Int?
    let courierToken: String?
    private let state = Mutex<(open: [OrderID: OrderStatus], carrying: [OrderID], notificationCursor: Int64)>(
        ([:], [], 0))

    init(index: Int, store: Int, staff: String, courier: Int?, courierToken: String?) {
        self.index = index
        self.store = store
        self.staff = staff
        self.courier = courier
        self.courierToken = courierToken
    }

    /// Creates an order, sometimes sending it twice with the same key (a retry after a lost answer).
    func create(_ api: API, ledger: Ledger, stats: inout Stats, retry: Bool) async throws {
        let boxes = Int.random(in: 1...24)
        let pickup = Int.random(in: 0..<5) == 0
        let draft = OrderDraft(
            fulfillment: pickup ? .pickup : .delivery, recipientFirstName: "Dana", recipientLastName: "Levi",
            phone: "050-\(Int.random(in: 1_000_000...9_999_999))", street: "Herzl", buildingNo: "\(boxes)",
            city: "Tel Aviv", boxesCount: boxes, customerName: "Customer \(index)")
        let key = UUID().uuidString
        var first: OrderHeader?
        for attempt in 0..<(retry ? 2 : 1) {
            let reply = try await stats.time(attempt == 0 ? "POST /v1/orders" : "POST /v1/orders (same key again)") {
                try await api.send(.POST, "/v1/orders", token: staff, body: draft, headers: [("Idempotency-Key", key)])
            }
            guard let reply, reply.status == 201, let order = try? reply.decode(OrderHeader.self) else {
                if first == nil { ledger.uncertain(store: store) }
                continue
            }
            if let first, first.id != order.id || first.number != order.number {
                ledger.replayMismatch(
                    "key \(key): first \(first.id) #\(first.number), again \(order.id) #\(order.number)")
            }
            if first == nil {
                first = order
                ledger.acknowledged(order.id, .init(store: store, boxes: boxes, fulfillment: order.fulfillment))
                state.withLock { $0.open[order.id] = order.status }
            }
        }
    }

    func mixStep(_ api: API, ledger: Ledger, stats: inout Stats, retryShare: Double) async throws {
        if courier != nil { return try await courierStep(api, ledger: ledger, stats: &stats) }
        let roll = Int.random(in: 0..<100)
        let open = state.withLock { $0.open }
        if roll < 40 || open.isEmpty {
            try await create(api, ledger: ledger, stats: &stats, retry: Double.random(in: 0..<1) < retryShare)
        } else if roll < 65 {
            let id = open.keys.randomElement()!
            let line = OrderItemDraft(
                type: [.repair, .accessory, .deviceSale, .devicePurchase, .product].randomElement()!,
                description: "Line", quantity: Int.random(in: 1...3), unitPriceGross: Int64.random(in: 1...50_000))
            // 422 when a courier took the order out meanwhile.
            let reply = try await stats.time("POST /v1/orders/{id}/items", expected: [201, 422]) {
                try await api.send(.POST, "/v1/orders/\(id)/items", token: staff, body: line)
            }
            if reply?.status == 422 { state.withLock { _ = $0.open.removeValue(forKey: id) } }
        } else if roll < 95 {
            let (id, status) = open.randomElement()!
            let action: OrderAction
            switch status {
            case .pending: action = .accept
            case .accepted: action = .startPreparing
            case .preparing: action = .markReady
            default:
                state.withLock { _ = $0.open.removeValue(forKey: id) }
                return
            }
            let reply = try await stats.time("POST /v1/orders/{id}/actions/*", expected: [200, 422]) {
                try await api.send(.POST, "/v1/orders/\(id)/actions/\(action.rawValue)", token: staff)
            }
            if let reply, reply.status == 200, let order = try? reply.decode(OrderHeader.self) {
                state.withLock { state in
                    if order.status == .ready && order.fulfillment == .delivery || !order.isOpen {
                        state.open.removeValue(forKey: id)
                    } else {
                        state.open[id] = order.status
                    }
                }
                if order.status == .ready && order.fulfillment == .pickup {
                    try await stats.time("POST /v1/orders/{id}/actions/*") {
                        try await api.send(.POST, "/v1/orders/\(id)/actions/mark_collected", token: staff)
                    }
                    state.withLock { _ = $0.open.removeValue(forKey: id) }
                }
            } else {
                state.withLock { _ = $0.open.removeValue(forKey: id) }
            }
        } else {
            try await longPoll(api, token: staff, stats: &stats)
        }
    }

    private func courierStep(_ api: API, ledger: Ledger, stats: inout Stats) async throws {
        let token = courierToken!
        let roll = Int.random(in: 0..<100)
        let carrying = state.withLock { $0.carrying }
        // A courier carrying all they may takes their orders on instead of claiming more.
        if carrying.count < OrderPool.maximumCarried && (roll < 45 || carrying.isEmpty && roll < 90) {
            let reply = try await stats.time("GET /v1/orders?available=true") {
                try await api.send(.GET, "/v1/orders?available=true&limit=20", token: token)
            }
            guard let reply, reply.status == 200, let page = try? reply.decode(Page<OrderHeader>.self),
                let order = page.data.randomElement()
            else { return }
            // Couriers race: 409 is losing, 422 finding it changed meanwhile.
            let claim = try await stats.time("POST /v1/orders/{id}/actions/claim", expected: [200, 409, 422]) {
                try await api.send(.POST, "/v1/orders/\(order.id)/actions/claim", token: token)
            }
            if claim?.status == 200 {
                ledger.claimed(order.id, by: courier!)
                state.withLock { $0.carrying.append(order.id) }
            }
        } else if roll < 90, let id = carrying.randomElement() {
            let reply = try await stats.time("GET /v1/orders/{id}") {
                try await api.send(.GET, "/v1/orders/\(id)", token: token)
            }
            guard let reply, let order = try? reply.decode(OrderHeader.self) else { return }
            let next: OrderAction? =
                order.status == .ready ? .pickUp : order.status == .outForDelivery ? .deliver : nil
            if let next {
                try await stats.time("POST /v1/orders/{id}/actions/*", expected: [200, 422]) {
                    try await api.send(.POST, "/v1/orders/\(id)/actions/\(next.rawValue)", token: token)
                }
            }
            if next == .deliver || !order.isOpen && order.status != .outForDelivery {
                state.withLock { $0.carrying.removeAll { $0 == id } }
            }
        } else {
            try await longPoll(api, token: token, stats: &stats)
        }
    }

    /// Reads the inbox from where this client left off, waiting up to a second for news.
    private func longPoll(_ api: API, token: String, stats: inout Stats) async throws {
        let cursor = state.withLock { $0.notificationCursor }
        let reply = try await stats.time("GET /v1/notifications?wait=1") {
            try await api.send(.GET, "/v1/notifications?after=\(cursor)&wait=1&limit=200", token: token)
        }
        if let reply, let page = try? reply.decode(NotificationInbox.self), let last = page.data.last {
            state.withLock { $0.notificationCursor = max($0.notificationCursor, last.seq) }
        }
    }
}

/// The fields of an order a client acts on: reading only these keeps the load generator's own
/// share of the machine small (the invariants read whole orders).
struct OrderHeader: Codable, Sendable {
    var id: OrderID
    var number: Int64
    var status: OrderStatus
    var fulfillment: Fulfillment

    var isOpen: Bool { [.pending, .accepted, .preparing, .ready].contains(status) }
}

// MARK: - Invariants

/// What must hold after any run, checked against the API as an admin (and each store's staff
/// member for the inbox).
struct Invariants {
    let api: API
    let cast: Cast
    let ledger: Ledger
    let inboxWait: Double

    /// Every failure, and the counts of orders acknowledged and missing, orders or
    /// notifications there twice, and orders whose creation never reached the store's inbox.
    struct Outcome {
        var failures: [String] = []
        var lost = 0
        var duplicated = 0
        var notificationsMissing = 0
    }

    func check() async throws -> Outcome {
        var outcome = Outcome()
        var failures = ledger.replayMismatches.map { "a repeated creation answered differently: \($0)" }
        let acknowledged = ledger.orders
        let uncertain = ledger.uncertain
        var ordersByStore: [Int: [Order]] = [:]
        for (index, store) in cast.stores.enumerated() {
            ordersByStore[index] = try await allOrders(of: store)
        }
        var found: [OrderID: Order] = [:]
        for (index, orders) in ordersByStore {
            var seen = Set<OrderID>()
            var numbers = Set<Int64>()
            for order in orders {
                if !seen.insert(order.id).inserted {
                    failures.append("order \(order.id) is listed twice")
                    outcome.duplicated += 1
                }
                if !numbers.insert(order.number).inserted {
                    failures.append("store \(index + 1) has two orders numbered \(order.number)")
                }
                found[order.id] = order
            }
            let expected = acknowledged.values.filter { $0.store == index }.count
            outcome.duplicated += max(0, orders.count - expected - uncertain[index, default: 0])
            if orders.count < expected || orders.count > expected + uncertain[index, default: 0] {
                failures.append(
                    "store \(index + 1) has \(orders.count) orders; \(expected) were acknowledged and \(uncertain[index, default: 0]) had no answer"
                )
            }
        }
        for (id, sent) in acknowledged {
            guard let order = found[id] else {
                failures.append("acknowledged order \(id) does not exist")
                outcome.lost += 1
                continue
            }
            let quote =
                sent.fulfillment == .delivery
                ? DeliveryPricing.standard.quote(forBoxes: sent.boxes) : DeliveryQuote(fee: 0, multiplier: 0)
            if order.boxesCount != sent.boxes || order.deliveryFee != quote?.fee
                || order.boxesMultiplier != quote?.multiplier
            {
                failures.append(
                    "order \(id): \(order.boxesCount) boxes, fee \(order.deliveryFee) ×\(order.boxesMultiplier); expected \(sent.boxes) boxes at \(quote?.fee ?? -1)"
                )
            }
            let gross = order.items.reduce(0) { $0 + $1.lineGross }
            let net = order.items.reduce(0) { $0 + $1.lineNet }
            let vat = order.items.reduce(0) { $0 + $1.lineVAT }
            if order.itemsGross != gross || order.itemsNet != net || order.itemsVAT != vat
                || order.total != gross + order.deliveryFee || net + vat != gross
            {
                failures.append(
                    "order \(id): totals \(order.itemsNet)+\(order.itemsVAT)=\(order.itemsGross), total \(order.total); lines sum to \(net)+\(vat)=\(gross)"
                )
            }
        }
        for (id, winners) in ledger.claims {
            if winners.count > 1 { failures.append("order \(id) was claimed by \(winners.count) couriers") }
            if let winner = winners.first, let order = found[id], order.courierID != cast.courierIDs[winner] {
                failures.append(
                    "order \(id) is carried by \(order.courierID?.description ?? "nobody"), not its claimer")
            }
        }
        let inboxes = try await checkInboxes(ordersByStore)
        outcome.failures = failures + inboxes.failures
        outcome.duplicated += inboxes.duplicated
        outcome.notificationsMissing = inboxes.missing
        return outcome
    }

    private func allOrders(of store: StoreID) async throws -> [Order] {
        var orders: [Order] = []
        var cursor: String?
        repeat {
            let page = try await api.require(
                [200], .GET, "/v1/orders?store_id=\(store)&limit=200" + (cursor.map { "&cursor=\($0)" } ?? ""),
                token: cast.admin
            ).decode(Page<Order>.self)
            orders += page.data
            cursor = page.nextCursor
        } while cursor != nil
        return orders
    }

    /// Every order's creation reached its store's staff inbox exactly once, and every delivery
    /// order's the inbox of each courier (all on duty throughout), waiting for the notifications
    /// service to catch up, then reading each inbox to its end.
    private func checkInboxes(_ ordersByStore: [Int: [Order]]) async throws -> (
        failures: [String], missing: Int, duplicated: Int
    ) {
        let deadline = ContinuousClock.now + .milliseconds(Int(inboxWait * 1000))
        var (failures, missingTotal, duplicatedTotal): ([String], Int, Int) = ([], 0, 0)
        var inboxes = ordersByStore.sorted(by: { $0.key < $1.key }).map { index, orders in
            ("store \(index + 1)", "the staff inbox", cast.staff[index], Set(orders.map(\.id)))
        }
        let deliveries = Set(ordersByStore.values.joined().filter { $0.fulfillment == .delivery }.map(\.id))
        for (index, courier) in cast.couriers.enumerated() {
            inboxes.append(("courier \(index + 1)", "their inbox", courier, deliveries))
        }
        for (who, inbox, token, expected) in inboxes {
            var missing = expected
            var told: [OrderID: Int] = [:]
            var cursor: Int64 = 0
            while true {
                let page = try await api.require(
                    [200], .GET, "/v1/notifications?after=\(cursor)&limit=200&wait=1", token: token
                ).decode(NotificationInbox.self)
                for notification in page.data where notification.type == "order.created" {
                    if let id = notification.data["order_id"].flatMap(OrderID.init) {
                        missing.remove(id)
                        told[id, default: 0] += 1
                    }
                }
                cursor = page.data.last?.seq ?? cursor
                if page.data.isEmpty && (missing.isEmpty || ContinuousClock.now > deadline) { break }
            }
            if !missing.isEmpty { failures.append("\(who): \(missing.count) orders never reached \(inbox)") }
            let twice = told.values.reduce(0) { $0 + max(0, $1 - 1) }
            if twice > 0 { failures.append("\(who): \(twice) repeated order.created notifications") }
            missingTotal += missing.count
            duplicatedTotal += twice
        }
        return (failures, missingTotal, duplicatedTotal)
    }
}

// MARK: - Report

struct PhaseResult {
    var name: String
    var duration: Double
    var histograms: [String: Histogram<UInt64>]
    var unexpected: [String: Int]
    var serverErrors: Int

    func rate(_ operation: String) -> Double {
        Double(histograms[operation]?.totalCount ?? 0) / duration
    }
}

struct Report {
    private var phases: [PhaseResult] = []

    mutating func add(_ phase: PhaseResult) { phases.append(phase) }

    func print() {
        func column(_ text: String, _ width: Int, left: Bool = false) -> String {
            let padding = String(repeating: " ", count: max(0, width - text.count))
            return left ? text + padding : padding + text
        }
        func number(_ value: Double) -> String { String(format: "%.1f", value) }
        say("")
        say(
            column("phase", 9, left: true) + " " + column("operation", 40, left: true) + column("count", 8)
                + column("rate/s", 9) + column("p50 ms", 9) + column("p90 ms", 9) + column("p99 ms", 9)
                + column("max ms", 9) + column("unexpected", 11))
        for phase in phases {
            for (operation, histogram) in phase.histograms.sorted(by: { $0.key < $1.key }) {
                func ms(_ percentile: Double) -> String {
                    number(Double(histogram.valueAtPercentile(percentile)) / 1000)
                }
                say(
                    column(phase.name, 9, left: true) + " " + column(operation, 40, left: true)
                        + column("\(histogram.totalCount)", 8)
                        + column(String(format: "%.0f", phase.rate(operation)), 9)
                        + column(ms(50), 9) + column(ms(90), 9) + column(ms(99), 9)
                        + column(number(Double(histogram.max) / 1000), 9)
                        + column("\(phase.unexpected[operation] ?? 0)", 11))
            }
        }
        say("")
    }
}
