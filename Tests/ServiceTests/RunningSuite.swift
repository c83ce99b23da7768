import Foundation
import Logging
import SQLKit
import Storage
import Synchronization
import TestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Redis and the five services as separate processes on free ports, each with its own SQLite
/// file in a temporary data directory, as `make run` starts them. Logs go to
/// `<data dir>/<service>.log`, which a failing test prints.
final class RunningSuite: Suite {
    let redis: RedisServerProcess
    let dataDirectory: String
    /// How each process was started, to start it again.
    private let launches: [String: Launch]
    private let running: Mutex<[ChildProcess]>
    var processes: [ChildProcess] { running.withLock { $0 } }
    let gatewayURL: String
    let adminPorts: [String: Int]
    let wirePorts: [String: Int]
    /// Drops the PostgreSQL databases, when the suite ran on PostgreSQL.
    let dropDatabases: @Sendable () async -> Void
    let adminEmail = "admin@example.com"
    let adminPassword = "admin-password-1"

    struct Launch: Sendable {
        var arguments: [String]
        var environment: [String: String]
        var logFile: String

        func start(_ name: String) throws -> ChildProcess {
            try ChildProcess(name: name, arguments: arguments, environment: environment, logFile: logFile)
        }
    }

    private init(
        redis: RedisServerProcess, dataDirectory: String, launches: [String: Launch], processes: [ChildProcess],
        gatewayURL: String, adminPorts: [String: Int], wirePorts: [String: Int],
        dropDatabases: @escaping @Sendable () async -> Void
    ) {
        self.dropDatabases = dropDatabases
        self.redis = redis
        self.dataDirectory = dataDirectory
        self.launches = launches
        self.running = Mutex(processes)
        self.gatewayURL = gatewayURL
        self.adminPorts = adminPorts
        self.wirePorts = wirePorts
    }

    /// Where the service executables are: beside the test bundle, or `ORDERLY_BIN_DIR`.
    static var binaryDirectory: String {
        if let given = ProcessInfo.processInfo.environment["ORDERLY_BIN_DIR"] { return given }
        return URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().path
    }

    /// Starts the suite, each service on its own SQLite file or, with `.postgres`, its own new
    /// database in the test cluster (`ORDERLY_TEST_POSTGRES_URL`); with `tls`, every Wire
    /// connection over mutual TLS, each process with a certificate of its own from a new
    /// authority. With `catalogReplicas` above 1 (on PostgreSQL), more catalog processes
    /// (`catalog-2`, …) share the catalog's database, and its callers spread calls over all.
    /// Without `bootstrapPassword`, the gateway is given none for its first admin.
    /// `gatewayEnvironment` is added to the gateway's.
    static func start(
        on kind: Database.Kind = .sqlite, tls: Bool = false, redisTLS: Bool = false, catalogReplicas: Int = 1,
        bootstrapPassword: Bool = true, gatewayEnvironment: [String: String] = [:]
    ) async throws -> RunningSuite {
        precondition(catalogReplicas == 1 || kind == .postgres, "catalog replicas share a PostgreSQL database")
        let redis = try await RedisServerProcess.start(tls: redisTLS)
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("orderly-suite-\(UUID().uuidString)")
            .path
        try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true)
        let names = ["catalog", "orders", "payments", "notifications", "gateway"]
        let replicas = catalogReplicas > 1 ? (2...catalogReplicas).map { "catalog-\($0)" } : []
        var wirePorts: [String: Int] = [:]
        var adminPorts: [String: Int] = [:]
        for name in names + replicas {
            wirePorts[name] = try ChildProcess.freePort()
            adminPorts[name] = try ChildProcess.freePort()
        }
        let httpPort = try ChildProcess.freePort()
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("ORDERLY_") }
        environment["ORDERLY_DATA_DIR"] = data
        environment["ORDERLY_REDIS_URL"] = "redis://127.0.0.1:\(redis.port)"
        environment["ORDERLY_INTERNAL_SECRET"] = "internal-secret-for-tests-0123456789"
        environment["ORDERLY_JWT_SECRET"] = "jwt-secret-for-tests-0123456789abcdef"
        environment["ORDERLY_BOOTSTRAP_ADMIN_EMAIL"] = "admin@example.com"
        if bootstrapPassword { environment["ORDERLY_BOOTSTRAP_ADMIN_PASSWORD"] = "admin-password-1" }
        environment["ORDERLY_AUTH_BCRYPT_COST"] = "4"
        // Tests log many users in from one address.
        environment["ORDERLY_AUTH_LOGIN_ATTEMPTS_PER_ADDRESS"] = "10000"
        environment["ORDERLY_AUTH_SIGN_UPS_PER_ADDRESS_PER_HOUR"] = "100000"
        // Tests poll and sign in as fast as they wait (the rate limits have tests of their own).
        environment["ORDERLY_HTTP_USER_REQUESTS_PER_SECOND"] = "0"
        environment["ORDERLY_HTTP_ANONYMOUS_REQUESTS_PER_SECOND"] = "0"
        environment["ORDERLY_LOG_LEVEL"] = "debug"
        environment["ORDERLY_PAYMENT_PROVIDER_SECRETS"] = InProcessSuite.providerSecrets
        environment["ORDERLY_HTTP_PORT"] = "\(httpPort)"
        // Streams show they are alive every second, so tests see it happen.
        environment["ORDERLY_NOTIFICATIONS_HEARTBEAT_SECONDS"] = "1"
        // Webhooks may go to this machine, and are retried within moments.
        environment["ORDERLY_WEBHOOKS_ALLOWED_NETWORKS"] = "127.0.0.0/8"
        environment["ORDERLY_WEBHOOKS_PLAIN_HTTP"] = "allowed"
        environment["ORDERLY_WEBHOOKS_RETRY_BASE_MILLISECONDS"] = "100"
        for name in names where name != "gateway" {
            environment["ORDERLY_\(name.uppercased())_ADDRESS"] = "127.0.0.1:\(wirePorts[name]!)"
        }
        environment["ORDERLY_CATALOG_ADDRESS"] = (["catalog"] + replicas).map { "127.0.0.1:\(wirePorts[$0]!)" }
            .joined(separator: ",")
        var databaseURLs: [String: String] = [:]
        var dropDatabases: @Sendable () async -> Void = {}
        if kind == .postgres {
            let server = try TestDatabase.postgresServerURL()
            let admin = try await Database.open(try DatabaseLocation(url: server), logger: Logger(label: "tests"))
            let prefix = "orderly_e2e_\(UUID().uuidString.prefix(8).lowercased())"
            for name in names {
                try await admin.read {
                    try await $0.raw("CREATE DATABASE \(unsafeRaw: prefix)_\(unsafeRaw: name)").run()
                }
                databaseURLs[name] = Self.url(server, database: "\(prefix)_\(name)")
            }
            dropDatabases = {
                for name in names {
                    try? await admin.read {
                        try await $0.raw("DROP DATABASE IF EXISTS \(unsafeRaw: prefix)_\(unsafeRaw: name) WITH (FORCE)")
                            .run()
                    }
                }
                await admin.close()
            }
        }
        let certificates = tls ? try TestCertificates.make(names: names, in: URL(fileURLWithPath: "\(data)/tls")) : nil
        var processes: [ChildProcess] = []
        var launches: [String: Launch] = [:]
        for name in names + replicas {
            let service = name.hasPrefix("catalog") ? "catalog" : name
            var own = environment
            own["ORDERLY_INSTANCE"] = name
            if let certificates {
                own["ORDERLY_WIRE_TLS_CERTIFICATE"] = certificates.certificate(name)
                own["ORDERLY_WIRE_TLS_KEY"] = certificates.key(name)
                own["ORDERLY_WIRE_TLS_AUTHORITY"] = certificates.certificate("ca")
            }
            own["ORDERLY_DATABASE_URL"] = databaseURLs[service]
            own["ORDERLY_WIRE_PORT"] = "\(wirePorts[name]!)"
            own["ORDERLY_ADMIN_PORT"] = "\(adminPorts[name]!)"
            if name == "gateway" { own.merge(gatewayEnvironment) { $1 } }
            let launch = Launch(
                arguments: ["\(binaryDirectory)/orderly-\(service)"], environment: own, logFile: "\(data)/\(name).log")
            launches[name] = launch
            processes.append(try launch.start(name))
        }
        let suite = RunningSuite(
            redis: redis, dataDirectory: data, launches: launches, processes: processes,
            gatewayURL: "http://127.0.0.1:\(httpPort)", adminPorts: adminPorts, wirePorts: wirePorts,
            dropDatabases: dropDatabases)
        do {
            try await suite.waitUntilReady()
        } catch {
            suite.printLogs()
            await suite.stop()
            throw error
        }
        return suite
    }

    func request(_ method: String, _ path: String, headers: [String: String], body: Data?) async throws -> Reply {
        try await HTTPClient(baseURL: gatewayURL).send(method, path, headers: headers, body: body)
    }

    /// How many long-polls the gateway holds, from its metrics.
    func longPollsWaiting() async -> Int { await gatewayGauge("orderly_gateway_long_polls_waiting") }

    /// How many event streams the gateway holds open, from its metrics.
    func streamsOpen() async -> Int { await gatewayGauge("orderly_gateway_streams_open") }

    private func gatewayGauge(_ name: String) async -> Int {
        guard let port = adminPorts["gateway"],
            let metrics = try? await HTTPClient(baseURL: "").send("GET", "http://127.0.0.1:\(port)/metrics")
        else { return 0 }
        let line = metrics.text.split(separator: "\n").first { $0.hasPrefix("\(name) ") }
        return line.flatMap { Double($0.split(separator: " ").last ?? "") }.map { Int($0) } ?? 0
    }

    /// The gateway's HTTP port.
    var httpPort: Int { Int(gatewayURL.split(separator: ":").last ?? "") ?? 0 }

    /// Stops process `name` with `signal` (a crash, by default), runs `whileDown`, starts it
    /// again as it was started, and waits until it is ready.
    func restart(_ name: String, signal: Int32 = SIGKILL, whileDown: () async throws -> Void = {}) async throws {
        guard let process = processes.first(where: { $0.name == name }), let launch = launches[name] else {
            throw ChildProcessError(reason: "no process \(name)")
        }
        await process.stop(signal: signal)
        try await whileDown()
        let started = try launch.start(name)
        running.withLock { $0 = $0.map { $0.name == name ? started : $0 } }
        try await waitUntilReady(only: [name])
    }

    /// Waits until every process's `/readyz` answers 200 (up to 60 seconds each).
    func waitUntilReady(only: Set<String>? = nil) async throws {
        let client = HTTPClient(baseURL: "")
        for (name, port) in adminPorts where only?.contains(name) ?? true {
            let ready = await waitUntil(within: .seconds(60)) {
                if let process = processes.first(where: { $0.name == name }), process.hasExited() { return true }
                return (try? await client.send("GET", "http://127.0.0.1:\(port)/readyz"))?.status == 200
            }
            if let process = processes.first(where: { $0.name == name }), process.hasExited() {
                throw ChildProcessError(reason: "\(name) exited at start")
            }
            if !ready { throw ChildProcessError(reason: "\(name) did not become ready") }
        }
    }

    func printLogs() {
        for process in processes {
            let log = (try? String(contentsOfFile: "\(dataDirectory)/\(process.name).log", encoding: .utf8)) ?? ""
            print("----- \(process.name) -----\n\(log.suffix(4000))")
        }
    }

    /// Stops the services (gateway first) and Redis, and removes the data directory.
    func stop() async {
        for process in processes.reversed() { await process.stop() }
        await redis.stop()
        await dropDatabases()
        try? FileManager.default.removeItem(atPath: dataDirectory)
    }

    /// `server` (a postgres:// URL) with its database replaced by `database`.
    static func url(_ server: String, database: String) -> String {
        let (base, query) = server.firstIndex(of: "?").map { (server[..<$0], server[$0...]) } ?? (server[...], "")
        let host = base.range(of: "/", options: .backwards).map { base[..<$0.lowerBound] } ?? base
        return "\(host)/\(database)\(query)"
    }

    /// Runs `body` against a fresh suite, printing the services' logs when it fails.
    static func with(
        on kind: Database.Kind = .sqlite, tls: Bool = false, redisTLS: Bool = false, catalogReplicas: Int = 1,
        bootstrapPassword: Bool = true, gatewayEnvironment: [String: String] = [:],
        _ body: (RunningSuite) async throws -> Void
    ) async throws {
        let suite = try await start(
            on: kind, tls: tls, redisTLS: redisTLS, catalogReplicas: catalogReplicas,
            bootstrapPassword: bootstrapPassword, gatewayEnvironment: gatewayEnvironment)
        do {
            try await body(suite)
        } catch {
            suite.printLogs()
            await suite.stop()
            throw error
        }
        await suite.stop()
    }
}
