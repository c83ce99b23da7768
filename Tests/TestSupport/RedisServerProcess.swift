import Foundation
public import Redis
import Synchronization

/// A throwaway `redis-server` on a free loopback port, which a test can stop and start again.
///
/// It writes no file of its own accord. With a `directory`, `SAVE` writes a snapshot there and
/// the server loads it when started again: a test can kill it and bring it back without what it
/// acknowledged after the snapshot, as a crash under `appendfsync everysec` would.
///
/// With `tls`, the server speaks TLS alone, with a certificate of a new authority, and `port` is
/// a local `stunnel` in front of it that checks that certificate: what a client without TLS of
/// its own (hiredis 0.14, Orderly's) is given to reach a managed Redis over TLS.
public final class RedisServerProcess: Sendable {
    public let port: Int
    private let directory: String?
    /// The `default` user's password (`requirepass`), when it has one.
    public let password: String?
    private let extraArguments: [String]
    private let process = Mutex<ChildProcess?>(nil)
    /// With TLS: the server's own port, its certificates, and the stunnel in front of it.
    private let tls: (port: Int, certificates: TestCertificates)?
    private let tunnel = Mutex<ChildProcess?>(nil)

    /// The port the server itself listens on with TLS alone (nil without TLS).
    public var tlsPort: Int? { tls?.port }

    private init(
        port: Int, directory: String?, password: String?, extraArguments: [String],
        tls: (port: Int, certificates: TestCertificates)? = nil
    ) {
        self.port = port
        self.directory = directory
        self.password = password
        self.extraArguments = extraArguments
        self.tls = tls
    }

    /// Starts a server on a free port. Two tests may be offered the same free port at once; the
    /// server that loses the race exits at once, and is started again on another port.
    /// `password` is required of clients; `extraArguments` are more of the server's settings
    /// (`["--user", "alice", "on", ">secret", "+@all"]`).
    public static func start(
        directory: String? = nil, password: String? = nil, extraArguments: [String] = [], tls: Bool = false
    ) async throws -> RedisServerProcess {
        var attempt = 0
        let certificates = tls ? try TestCertificates.make(names: ["redis"]) : nil
        while true {
            let server = RedisServerProcess(
                port: try ChildProcess.freePort(), directory: directory, password: password,
                extraArguments: extraArguments,
                tls: try certificates.map { (try ChildProcess.freePort(), $0) })
            do {
                try await server.start()
                return server
            } catch RedisError.unavailable where attempt < 5 {
                attempt += 1
            }
        }
    }

    public var configuration: RedisConfiguration {
        RedisConfiguration(host: "127.0.0.1", port: port, password: password, poolSize: 4)
    }

    /// Starts `redis-server` and waits until it answers `PING`.
    public func start() async throws {
        var arguments = [
            "/usr/bin/redis-server", "--port", "\(port)", "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
        ]
        if let tls {
            let files = tls.certificates
            arguments[2] = "0"
            arguments += [
                "--tls-port", "\(tls.port)", "--tls-cert-file", files.certificate("redis"), "--tls-key-file",
                files.key("redis"), "--tls-ca-cert-file", files.certificate("ca"), "--tls-auth-clients", "no",
            ]
            let configuration = files.folder.appendingPathComponent("stunnel-\(port).conf")
            try """
            foreground = yes
            pid =
            [redis]
            client = yes
            accept = 127.0.0.1:\(port)
            connect = 127.0.0.1:\(tls.port)
            CAfile = \(files.certificate("ca"))
            verifyChain = yes
            checkHost = localhost
            """.write(to: configuration, atomically: true, encoding: .utf8)
            let stunnel = try ChildProcess(name: "stunnel", arguments: ["/usr/bin/stunnel", configuration.path])
            tunnel.withLock { $0 = stunnel }
        }
        if let directory { arguments += ["--dir", directory] }
        if let password { arguments += ["--requirepass", password] }
        let child = try ChildProcess(name: "redis", arguments: arguments + extraArguments)
        process.withLock { $0 = child }
        var probeConfiguration = configuration
        probeConfiguration.poolSize = 1
        let probe = RedisClient(configuration: probeConfiguration)
        defer { Task { await probe.shutdown() } }
        for _ in 0..<100 {
            if child.hasExited() {
                // It exited (its port was taken): whatever answers there is not this server.
                throw RedisError.unavailable("redis-server could not start on port \(port)")
            }
            // Answered by this very process, not by another test's server on the same port.
            if let info = try? await probe.send("INFO", "server"),
                let id = child.processID, info.text?.contains("process_id:\(id)\r") == true
            {
                return
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw RedisError.unavailable("redis-server did not start on port \(port)")
    }

    /// Stops the server and waits until it has exited, so its port is free again.
    public func stop() async {
        await process.withLock({ $0 })?.stop(grace: .seconds(4))
        await tunnel.withLock({ $0 })?.stop(grace: .seconds(4))
    }

    /// Kills the server with SIGKILL, as a crash or a power cut would, and waits until it is gone.
    public func kill() async {
        await process.withLock({ $0 })?.stop(signal: SIGKILL, grace: .seconds(4))
        await tunnel.withLock({ $0 })?.stop(grace: .seconds(4))
    }
}

/// Runs `body` with a fresh `redis-server` (started with `password` and `extraArguments`, as
/// `RedisServerProcess.start`) and a client for it; both are stopped afterwards, whether `body`
/// returns or throws.
public func withRedis(
    password: String? = nil, extraArguments: [String] = [],
    _ body: (RedisClient, RedisServerProcess) async throws -> Void
) async throws {
    let server = try await RedisServerProcess.start(password: password, extraArguments: extraArguments)
    let redis = RedisClient(configuration: server.configuration)
    do {
        try await body(redis, server)
    } catch {
        await redis.shutdown()
        await server.stop()
        throw error
    }
    await redis.shutdown()
    await server.stop()
}
