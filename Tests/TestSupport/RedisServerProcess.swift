public import Foundation
public import Redis
import Synchronization

/// A throwaway `redis-server` on a free loopback port, which a test can stop and start again.
public final class RedisServerProcess: Sendable {
    public let port: Int
    private let pid = Mutex<pid_t?>(nil)

    private init(port: Int) { self.port = port }

    /// Starts a server on a free port. Two tests may be offered the same free port at once; the
    /// server that loses the race exits at once, and is started again on another port.
    public static func start() async throws -> RedisServerProcess {
        var attempt = 0
        while true {
            let server = RedisServerProcess(port: try freePort())
            do {
                try await server.start()
                return server
            } catch RedisError.unavailable where attempt < 5 {
                attempt += 1
            }
        }
    }

    public var configuration: RedisConfiguration { RedisConfiguration(host: "127.0.0.1", port: port, poolSize: 4) }

    /// Spawns `redis-server` directly (Foundation's `Process` does not notice the exit of its
    /// children reliably here) and waits until it answers `PING`.
    public func start() async throws {
        let arguments = [
            "/usr/bin/redis-server", "--port", "\(port)", "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
            "--logfile", "/dev/null",
        ]
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        // The child starts with this thread's signal mask, and threads of the concurrency pool
        // block signals: give it an empty mask and default handlers so SIGTERM stops it.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        var allSignals = sigset_t()
        sigfillset(&allSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setsigdefault(&attributes, &allSignals)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var child: pid_t = 0
        guard posix_spawn(&child, arguments[0], nil, &attributes, &argv, environ) == 0 else {
            throw RedisError.unavailable("cannot start redis-server")
        }
        pid.withLock { $0 = child }
        let probe = RedisClient(configuration: RedisConfiguration(host: "127.0.0.1", port: port, poolSize: 1))
        for _ in 0..<100 {
            var status: Int32 = 0
            if waitpid(child, &status, WNOHANG) == child {
                // It exited (its port was taken): whatever answers there is not this server.
                pid.withLock { $0 = nil }
                await probe.shutdown()
                throw RedisError.unavailable("redis-server could not start on port \(port)")
            }
            // Answered by this very process, not by another test's server on the same port.
            if let info = try? await probe.send("INFO", "server"), info.text?.contains("process_id:\(child)\r") == true
            {
                await probe.shutdown()
                return
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        await probe.shutdown()
        throw RedisError.unavailable("redis-server did not start on port \(port)")
    }

    /// Stops the server and waits until it has exited, so its port is free again.
    public func stop() async {
        guard
            let child = pid.withLock({ pid in
                defer { pid = nil }; return pid
            })
        else { return }
        kill(child, SIGTERM)
        var status: Int32 = 0
        for _ in 0..<400 {
            if waitpid(child, &status, WNOHANG) == child { return }
            try? await Task.sleep(for: .milliseconds(10))
        }
        kill(child, SIGKILL)
        waitpid(child, &status, 0)
    }

    deinit {
        if let child = pid.withLock({ $0 }) {
            kill(child, SIGKILL)
            var status: Int32 = 0
            waitpid(child, &status, 0)
        }
    }

    /// A port nothing listens on now: bind to port 0 and read what the kernel chose.
    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        guard bound == 0 else { throw RedisError.unavailable("no free port") }
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

/// Runs `body` with a fresh `redis-server` and a client for it; both are stopped afterwards,
/// whether `body` returns or throws.
public func withRedis(_ body: (RedisClient, RedisServerProcess) async throws -> Void) async throws {
    let server = try await RedisServerProcess.start()
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
