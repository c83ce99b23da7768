import Foundation
import Logging
import SQLKit
import Storage
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
    let processes: [ChildProcess]
    let gatewayURL: String
    let adminPorts: [String: Int]
    let wirePorts: [String: Int]
    /// Drops the PostgreSQL databases, when the suite ran on PostgreSQL.
    let dropDatabases: @Sendable () async -> Void
    let adminEmail = "admin@example.com"
    let adminPassword = "admin-password-1"

    private init(
        redis: RedisServerProcess, dataDirectory: String, processes: [ChildProcess], gatewayURL: String,
        adminPorts: [String: Int], wirePorts: [String: Int], dropDatabases: @escaping @Sendable () async -> Void
    ) {
        self.dropDatabases = dropDatabases
        self.redis = redis
        self.dataDirectory = dataDirectory
        self.processes = processes
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
    /// authority.
    static func start(on kind: Database.Kind = .sqlite, tls: Bool = false) async throws -> RunningSuite {
        let redis = try await RedisServerProcess.start()
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("orderly-suite-\(UUID().uuidString)")
            .path
        try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true)
        let names = ["catalog", "orders", "payments", "notifications", "gateway"]
        var wirePorts: [String: Int] = [:]
        var adminPorts: [String: Int] = [:]
        for name in names {
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
        environment["ORDERLY_BOOTSTRAP_ADMIN_PASSWORD"] = "admin-password-1"
        environment["ORDERLY_AUTH_BCRYPT_COST"] = "4"
        // Tests log many users in from one address.
        environment["ORDERLY_AUTH_LOGIN_ATTEMPTS_PER_ADDRESS"] = "10000"
        environment["ORDERLY_LOG_LEVEL"] = "debug"
        environment["ORDERLY_HTTP_PORT"] = "\(httpPort)"
        for name in names where name != "gateway" {
            environment["ORDERLY_\(name.uppercased())_ADDRESS"] = "127.0.0.1:\(wirePorts[name]!)"
        }
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
        for name in names {
            var own = environment
            if let certificates {
                own["ORDERLY_WIRE_TLS_CERTIFICATE"] = certificates.certificate(name)
                own["ORDERLY_WIRE_TLS_KEY"] = certificates.key(name)
                own["ORDERLY_WIRE_TLS_AUTHORITY"] = certificates.certificate("ca")
            }
            own["ORDERLY_DATABASE_URL"] = databaseURLs[name]
            own["ORDERLY_WIRE_PORT"] = "\(wirePorts[name]!)"
            own["ORDERLY_ADMIN_PORT"] = "\(adminPorts[name]!)"
            processes.append(
                try ChildProcess(
                    name: name, arguments: ["\(binaryDirectory)/orderly-\(name)"], environment: own,
                    logFile: "\(data)/\(name).log"))
        }
        let suite = RunningSuite(
            redis: redis, dataDirectory: data, processes: processes, gatewayURL: "http://127.0.0.1:\(httpPort)",
            adminPorts: adminPorts, wirePorts: wirePorts, dropDatabases: dropDatabases)
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
    func longPollsWaiting() async -> Int {
        guard let port = adminPorts["gateway"],
            let metrics = try? await HTTPClient(baseURL: "").send("GET", "http://127.0.0.1:\(port)/metrics")
        else { return 0 }
        let line = metrics.text.split(separator: "\n").first { $0.hasPrefix("gateway_long_polls_waiting ") }
        return line.flatMap { Double($0.split(separator: " ").last ?? "") }.map { Int($0) } ?? 0
    }

    /// Waits until every process's `/readyz` answers 200 (up to 60 seconds each).
    func waitUntilReady() async throws {
        let client = HTTPClient(baseURL: "")
        for (name, port) in adminPorts {
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
        on kind: Database.Kind = .sqlite, tls: Bool = false, _ body: (RunningSuite) async throws -> Void
    ) async throws {
        let suite = try await start(on: kind, tls: tls)
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
