public import Foundation
import Synchronization

/// A process a test starts and stops: spawned directly with `posix_spawn` (Foundation's
/// `Process` does not notice the exit of its children reliably here), killed if the test forgets.
public final class ChildProcess: Sendable {
    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34 and later), which its headers
    /// declare only for `_GNU_SOURCE` and so Swift does not see: found at run time.
    private static let closeFrom: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32)? =
        dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np").map {
            unsafeBitCast(
                $0, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)
        }

    public let name: String
    private let pid = Mutex<pid_t?>(nil)

    /// Starts `arguments[0]` with `environment`, its output appended to `logFile` (or discarded).
    public init(name: String, arguments: [String], environment: [String: String]? = nil, logFile: String? = nil) throws
    {
        self.name = name
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var envp: [UnsafeMutablePointer<CChar>?]? = environment.map {
            $0.map { strdup("\($0.key)=\($0.value)") } + [nil]
        }
        defer { for pointer in envp ?? [] { free(pointer) } }
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
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        let output = logFile ?? "/dev/null"
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        // SwiftNIO opens its sockets without close-on-exec: without this, the child would hold
        // every socket the tests have open, keeping a server's port taken (and accepting
        // connections nobody answers) after the test closed it.
        _ = Self.closeFrom?(&actions, 3)
        var child: pid_t = 0
        let result: Int32
        if envp != nil {
            result = posix_spawn(&child, arguments[0], &actions, &attributes, &argv, &envp!)
        } else {
            result = posix_spawn(&child, arguments[0], &actions, &attributes, &argv, environ)
        }
        guard result == 0 else { throw ChildProcessError(reason: "cannot start \(arguments[0]): error \(result)") }
        pid.withLock { $0 = child }
    }

    /// The process id while it runs.
    public var processID: pid_t? { pid.withLock { $0 } }

    /// Whether it has exited (and is reaped).
    public func hasExited() -> Bool {
        pid.withLock { pid in
            guard let child = pid else { return true }
            var status: Int32 = 0
            if waitpid(child, &status, WNOHANG) == child {
                pid = nil
                return true
            }
            return false
        }
    }

    /// Sends `signal` (SIGTERM unless told otherwise) and waits up to `grace` for the exit,
    /// then kills it.
    public func stop(signal: Int32 = SIGTERM, grace: Duration = .seconds(10)) async {
        guard
            let child = pid.withLock({ pid in
                defer { pid = nil }; return pid
            })
        else { return }
        kill(child, signal)
        var status: Int32 = 0
        let deadline = ContinuousClock.now + grace
        while ContinuousClock.now < deadline {
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

    /// Ports handed out so far; each is handed out once per test process.
    private static let nextPort = Mutex(Int.random(in: 0..<2_000))

    /// A port free to listen on, for a server a test starts. It comes from 30000–32699, below
    /// the kernel's ephemeral range (32768 and up on Linux), so no outgoing connection and no
    /// bind(0) can take it between now and the server's bind; and never twice from one process.
    public static func freePort() throws -> Int {
        for _ in 0..<2_700 {
            let port =
                30_000
                + nextPort.withLock { next in
                    defer { next = (next + 1) % 2_700 }
                    return next
                }
            if canBind(port) { return port }
        }
        throw ChildProcessError(reason: "no free port in 30000–32699")
    }

    private static func canBind(_ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        let length = socklen_t(MemoryLayout<sockaddr_in>.size)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        } == 0
    }
}

public struct ChildProcessError: Error, CustomStringConvertible {
    public var reason: String

    public init(reason: String) { self.reason = reason }

    public var description: String { reason }
}
