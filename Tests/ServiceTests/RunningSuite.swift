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
final class RunningSuite: Sendable {
    let redis: RedisServerProcess
    let dataDirectory: String
    let processes: [ChildProcess]
    let gatewayURL: String
    let adminPorts: [String: Int]
    /// Drops the PostgreSQL databases, when the suite ran on PostgreSQL.
    let dropDatabases: @Sendable () async -> Void
    let adminEmail = "admin@example.com"
    let adminPassword = "admin-password-1"

    private init(
        redis: RedisServerProcess, dataDirectory: String, processes: [ChildProcess], gatewayURL: String,
        adminPorts: [String: Int], dropDatabases: @escaping @Sendable () async -> Void
    ) {
        self.dropDatabases = dropDatabases
        self.redis = redis
        self.dataDirectory = dataDirectory
        self.processes = processes
        self.gatewayURL = gatewayURL
        self.adminPorts = adminPorts
    }

    /// Where the service executables are: beside the test bundle, or `ORDERLY_BIN_DIR`.
    static var binaryDirectory: String {
        if let given = ProcessInfo.processInfo.environment["ORDERLY_BIN_DIR"] { return given }
        return URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().path
    }

    /// Starts the suite, each service on its own SQLite file or, with `.postgres`, its own new
    /// database in the test cluster (`ORDERLY_TEST_POSTGRES_URL`).
    static func start(on kind: Database.Kind = .sqlite) async throws -> RunningSuite {
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
        var processes: [ChildProcess] = []
        for name in names {
            var own = environment
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
            adminPorts: adminPorts, dropDatabases: dropDatabases)
        do {
            try await suite.waitUntilReady()
        } catch {
            suite.printLogs()
            await suite.stop()
            throw error
        }
        return suite
    }

    /// Waits until every process's `/readyz` answers 200 (up to 60 seconds).
    func waitUntilReady() async throws {
        let client = HTTPClient(baseURL: "")
        for (name, port) in adminPorts {
            var ready = false
            for _ in 0..<600 {
                if let process = processes.first(where: { $0.name == name }), process.hasExited() {
                    throw ChildProcessError(reason: "\(name) exited at start")
                }
                if let response = try? await client.send("GET", "http://127.0.0.1:\(port)/readyz"),
                    response.status == 200
                {
                    ready = true
                    break
                }
                try await Task.sleep(for: .milliseconds(100))
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
    static func with(on kind: Database.Kind = .sqlite, _ body: (RunningSuite) async throws -> Void) async throws {
        let suite = try await start(on: kind)
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

/// A small HTTP/JSON client over URLSession.
struct HTTPClient: Sendable {
    let baseURL: String

    struct Reply: Sendable {
        var status: Int
        var headers: [String: String]
        var body: Data

        /// The body as JSON (an object or array), or nil.
        var json: Any? { try? JSONSerialization.jsonObject(with: body) }
        var object: [String: Any] { json as? [String: Any] ?? [:] }
        var error: [String: Any] { object["error"] as? [String: Any] ?? [:] }
        var text: String { String(decoding: body, as: UTF8.self) }
    }

    func send(
        _ method: String, _ path: String, token: String? = nil, json: Any? = nil, raw: Data? = nil,
        headers: [String: String] = [:], timeout: TimeInterval = 40
    ) async throws -> Reply {
        var request = URLRequest(url: URL(string: baseURL + path)!)
        request.httpMethod = method
        request.timeoutInterval = timeout
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        if let json {
            request.httpBody = try JSONSerialization.data(withJSONObject: json)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        } else if let raw {
            request.httpBody = raw
        }
        let (data, response) = try await URLSession.shared.data(for: request)
        let http = response as! HTTPURLResponse
        var replyHeaders: [String: String] = [:]
        for (name, value) in http.allHeaderFields {
            replyHeaders[String(describing: name).lowercased()] = String(describing: value)
        }
        return Reply(status: http.statusCode, headers: replyHeaders, body: data)
    }
}
