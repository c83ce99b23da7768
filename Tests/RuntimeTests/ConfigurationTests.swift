import Foundation
import Logging
import Runtime
import Testing
import Wire

@Suite("Configuration")
struct ConfigurationTests {
    let secret = ["ORDERLY_INTERNAL_SECRET": "0123456789abcdef0123"]

    private func read(_ environment: [String: String], arguments: [String] = ["orderly"]) async throws
        -> ProcessSettings
    {
        try ProcessSettings.read(
            service: "orders", defaultWirePort: 7101, defaultAdminPort: 9101,
            from: try await ConfigurationSource.load(arguments: arguments, environment: environment))
    }

    @Test("with only the secret set, every setting has its default")
    func defaults() async throws {
        let settings = try await read(secret)
        #expect(settings.wireHost == "127.0.0.1")
        #expect(settings.wirePort == 7101)
        #expect(settings.adminPort == 9101)
        #expect(settings.logLevel == .info)
        #expect(settings.logFormat == .plain)
        #expect(settings.maximumFrameLength == 4 * 1024 * 1024)
    }

    @Test("ORDERLY_ variables override the defaults, and flags override the variables")
    func precedence() async throws {
        var environment = secret
        environment["ORDERLY_WIRE_PORT"] = "7201"
        environment["ORDERLY_LOG_FORMAT"] = "json"
        environment["ORDERLY_WIRE_MAX_FRAME_BYTES"] = "65536"
        let fromEnvironment = try await read(environment)
        #expect(fromEnvironment.wirePort == 7201)
        #expect(fromEnvironment.logFormat == .json)
        #expect(fromEnvironment.maximumFrameLength == 65536)
        let fromFlags = try await read(environment, arguments: ["orderly", "--wire-port", "7301"])
        #expect(fromFlags.wirePort == 7301)
    }

    @Test("a JSON file named by ORDERLY_CONFIG_FILE sits below the environment")
    func file() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("orderly-\(UUID()).json").path
        try Data(#"{"wire": {"port": 7401, "host": "0.0.0.0"}, "log": {"level": "debug"}}"#.utf8)
            .write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        var environment = secret
        environment["ORDERLY_CONFIG_FILE"] = path
        environment["ORDERLY_WIRE_HOST"] = "127.0.0.2"
        let settings = try await read(environment)
        #expect(settings.wirePort == 7401)
        #expect(settings.wireHost == "127.0.0.2")
        #expect(settings.logLevel == .debug)
    }

    @Test("Wire TLS needs its three files together, and files that can be read")
    func wireTLS() async throws {
        #expect(try await read(secret).wireTLS == nil)
        for (partial, problem) in [
            (["ORDERLY_WIRE_TLS_CERTIFICATE": "/etc/orderly/orders.pem"], "together"),
            (
                [
                    "ORDERLY_WIRE_TLS_CERTIFICATE": "/nonexistent/orders.pem", "ORDERLY_WIRE_TLS_KEY": "/nonexistent/k",
                    "ORDERLY_WIRE_TLS_AUTHORITY": "/nonexistent/ca.pem",
                ], "'/nonexistent/orders.pem' cannot be read"
            ),
        ] {
            await #expect {
                try await read(secret.merging(partial) { a, _ in a })
            } throws: { error in
                "\(error)".contains("ORDERLY_WIRE_TLS (wire.tls)") && "\(error)".contains(problem)
            }
        }
    }

    @Test("a missing config file is an error naming it")
    func missingFile() async {
        await #expect(throws: ConfigurationError.self) {
            try await read(secret.merging(["ORDERLY_CONFIG_FILE": "/nonexistent/orderly.json"]) { a, _ in a })
        }
    }

    @Test("every bad value is reported at once, naming its variable and what was expected")
    func validation() async throws {
        let environment = [
            "ORDERLY_WIRE_PORT": "seventy", "ORDERLY_ADMIN_PORT": "70000", "ORDERLY_LOG_LEVEL": "loud",
            "ORDERLY_INTERNAL_SECRET": "short",
        ]
        do {
            _ = try await read(environment)
            Issue.record("bad settings were accepted")
        } catch let error as ConfigurationError {
            #expect(error.problems.count == 4)
            let text = error.description
            #expect(text.contains("ORDERLY_WIRE_PORT (wire.port): expected an integer from 0 to 65535, got 'seventy'"))
            #expect(text.contains("ORDERLY_ADMIN_PORT"))
            #expect(text.contains("ORDERLY_LOG_LEVEL (log.level): expected one of trace, debug"))
            #expect(text.contains("ORDERLY_INTERNAL_SECRET (internal.secret): must be at least 16 bytes long"))
            #expect(!text.contains("short"))
        }
    }

    @Test("the internal secret comes from the environment only, never from flags or files")
    func secretFromEnvironmentOnly() async throws {
        await #expect(throws: ConfigurationError.self) {
            try await read([:], arguments: ["orderly", "--internal-secret", "0123456789abcdef0123"])
        }
    }

    @Test("database and Redis URLs with a password come from the environment only, and are never echoed")
    func credentialsFromEnvironmentOnly() async throws {
        func service(_ environment: [String: String], arguments: [String] = ["orderly"]) async throws
            -> ServiceSettings
        {
            try ServiceSettings.read(
                service: "orders", defaultWirePort: 7101, defaultAdminPort: 9101, upstreams: [:],
                from: try await ConfigurationSource.load(arguments: arguments, environment: environment))
        }
        let redisURL = "redis://orders:r3dis-pass@cache:6380/1"
        let databaseURL = "postgres://orders:pg-pass@db:5432/orders"
        let fromEnvironment = try await service(
            secret.merging(["ORDERLY_REDIS_URL": redisURL, "ORDERLY_DATABASE_URL": databaseURL]) { a, _ in a })
        #expect(fromEnvironment.redis.password == "r3dis-pass" && fromEnvironment.redis.database == 1)
        #expect(fromEnvironment.database.description == "postgres://orders@db:5432/orders")

        // Without a password a flag is fine; with one it is refused, naming the variable, not the value.
        let plain = try await service(secret, arguments: ["orderly", "--redis-url", "redis://cache:6380"])
        #expect(plain.redis.host == "cache" && plain.redis.password == nil)
        do {
            _ = try await service(
                secret, arguments: ["orderly", "--redis-url", redisURL, "--database-url", databaseURL])
            Issue.record("passwords in flags were accepted")
        } catch let error as ConfigurationError {
            #expect(error.problems.count == 2)
            #expect(
                error.description.contains(
                    "ORDERLY_REDIS_URL (redis.url): a URL with a password is read from the environment only"))
            #expect(error.description.contains("ORDERLY_DATABASE_URL (database.url)"))
            #expect(!error.description.contains("r3dis-pass") && !error.description.contains("pg-pass"))
        }
    }

    @Test("a Redis Cluster's nodes and the streams per service are read; a cluster needs two streams or more")
    func redisCluster() async throws {
        func service(_ environment: [String: String]) async throws -> ServiceSettings {
            try ServiceSettings.read(
                service: "orders", defaultWirePort: 7101, defaultAdminPort: 9101, upstreams: [:],
                from: try await ConfigurationSource.load(
                    arguments: ["orderly"], environment: secret.merging(environment) { a, _ in a }))
        }
        let cluster = try await service([
            "ORDERLY_REDIS_URL": "redis-cluster://10.0.0.1:7000,10.0.0.2:7000", "ORDERLY_REDIS_STREAM_SHARDS": "4",
        ])
        #expect(cluster.redis.clusterSeeds.count == 2 && cluster.redis.streamShards == 4)
        #expect(try await service([:]).redis.streamShards == 1)
        for (url, shards, problem) in [
            (
                "redis-cluster://10.0.0.1:7000", "1",
                "ORDERLY_REDIS_STREAM_SHARDS (redis.stream_shards): at least 2 with a Redis Cluster, got 1"
            ),
            (
                "redis://cache:6379", "0",
                "ORDERLY_REDIS_STREAM_SHARDS (redis.stream_shards): expected an integer from 1 to 1024, got '0'"
            ),
        ] {
            await #expect {
                try await service(["ORDERLY_REDIS_URL": url, "ORDERLY_REDIS_STREAM_SHARDS": shards])
            } throws: { error in
                (error as? ConfigurationError)?.description.contains(problem) == true
            }
        }
    }

    @Test("a process may hold its Wire keys alone instead of the secret; malformed keys are refused unechoed")
    func wireKeys() async throws {
        let key = String(repeating: "ab", count: 32)
        let settings = try await read(["ORDERLY_WIRE_KEYS": "orders>catalog=\(key),gateway>orders=\(key)"])
        #expect(settings.internalSecret.exportedPair(caller: "orders", server: "catalog") == "orders>catalog=\(key)")
        #expect(settings.internalSecret.exportedPair(caller: "payments", server: "orders") == nil)
        do {
            _ = try await read(["ORDERLY_WIRE_KEYS": "orders>catalog=\(key.dropLast(2))"])
            Issue.record("malformed keys were accepted")
        } catch let error as ConfigurationError {
            #expect(error.description.contains("ORDERLY_WIRE_KEYS") && !error.description.contains(key.dropLast(2)))
        }
        await #expect(throws: ConfigurationError.self) { try await read([:]) }
    }

    @Test("camelCase keys map to upper snake-case variables")
    func variableNames() {
        #expect(SettingsReader.variable(for: "wire.maxFrameBytes") == "ORDERLY_WIRE_MAX_FRAME_BYTES")
        #expect(SettingsReader.variable(for: "log.level") == "ORDERLY_LOG_LEVEL")
    }
}
