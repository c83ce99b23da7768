import Domain
import Foundation
import Logging
import NIOCore
import Synchronization
import TestSupport
import Testing

@testable import Wire

/// A service named once and served by several replicas, as compose and Kubernetes name them:
/// the pool resolves the name to every address and keeps following it.
@Suite("Wire replicas found by name", .timeLimit(.minutes(1)))
struct WireResolutionTests {
    /// Two servers on the same port of two loopback addresses, each answering with its name.
    static func replicas() async throws -> (a: RunningServer, b: RunningServer) {
        func answering(_ name: String) -> WireRouter {
            var router = WireRouter()
            router.register(TestAPI.echo) { _, _ in TestAPI.Echo(text: name) }
            return router
        }
        let a = try await RunningServer.start(host: "127.0.0.2", router: answering("a"))
        let b = try await RunningServer.start(host: "127.0.0.3", port: a.port, router: answering("b"))
        return (a, b)
    }

    @Test("a name with two addresses spreads calls over both; one that goes is dropped, one that comes is used")
    func followsTheName() async throws {
        var (a, b) = try await Self.replicas()
        let port = a.port
        let hosts = try HostsFile(["127.0.0.2 orders.test", "127.0.0.3 orders.test"])
        defer { hosts.remove() }
        let pool = WireClient(
            configuration: WireClientConfiguration(
                service: "test", endpoints: [WireEndpoint(host: "orders.test", port: port)], callerService: "tests",
                secret: testSecret, reconnectBackoff: (.milliseconds(20), .milliseconds(200)),
                ejectionTime: .seconds(1), resolver: hosts.resolver, resolveInterval: .milliseconds(100)),
            logger: Logger(label: "test.client"))

        var phase = "spread"
        /// One call; a failure names the phase and what the pool holds.
        func call() async throws -> String {
            do {
                return try await pool.call(TestAPI.echo, TestAPI.Echo(text: "")).text
            } catch {
                throw PhaseFailure(description: "\(phase): \(error); pool \(pool.addresses)")
            }
        }
        /// Calls until each of `names` has answered three times; whether that came to pass.
        func answered(by names: Set<String>) async throws -> Bool {
            var counts: [String: Int] = [:]
            let spread = try await waitUntil {
                counts[try await call(), default: 0] += 1
                return names.allSatisfy { counts[$0, default: 0] >= 3 }
            }
            return spread && Set(counts.keys).isSubset(of: names)
        }
        #expect(try await answered(by: ["a", "b"]))
        #expect(pool.addresses == ["127.0.0.2:\(port)", "127.0.0.3:\(port)"])

        // Replica b stops: every call still succeeds, on a.
        phase = "b stopped"
        try await b.stop()
        for _ in 0..<50 { #expect(try await call() == "a") }
        phase = "b dropped"
        // Its record goes from the name: the pool, resolving again as calls come, lets its address go.
        try hosts.write(["127.0.0.2 orders.test"])
        let dropped = try await waitUntil {
            _ = try await call()
            return pool.addresses == ["127.0.0.2:\(port)"]
        }
        #expect(dropped, "\(pool.addresses)")

        // A replica comes back under the name: calls spread over both again.
        phase = "b back"
        b = try await RunningServer.start(
            host: "127.0.0.3", port: port,
            router: {
                var router = WireRouter()
                router.register(TestAPI.echo) { _, _ in TestAPI.Echo(text: "b") }
                return router
            }())
        try hosts.write(["127.0.0.2 orders.test", "127.0.0.3 orders.test"])
        #expect(try await answered(by: ["a", "b"]))

        // While the name cannot be resolved, the addresses it last had are kept.
        phase = "name unresolvable"
        try hosts.write([])
        let failed = hosts.failures
        #expect(
            try await waitUntil {
                _ = try await call()
                return hosts.failures > failed
            })
        #expect(try await answered(by: ["a", "b"]))
        #expect(pool.addresses == ["127.0.0.2:\(port)", "127.0.0.3:\(port)"])

        await pool.close()
        try await a.stop()
        try await b.stop()
    }

    @Test("a name nothing answers for fails the call as unavailable, naming the service")
    func unresolvable() async throws {
        let hosts = try HostsFile([])
        defer { hosts.remove() }
        let pool = WireClient(
            configuration: WireClientConfiguration(
                service: "test", endpoints: [WireEndpoint(host: "nowhere.test", port: 7201)], callerService: "tests",
                secret: testSecret, resolver: hosts.resolver),
            logger: Logger(label: "test.client"))
        do {
            _ = try await pool.call(
                TestAPI.echo, TestAPI.Echo(text: ""), options: WireCallOptions(timeout: .seconds(1)))
            Issue.record("a call to an unresolvable name succeeded")
        } catch let error as OrderlyError {
            #expect(error.code == .unavailable && error.message.contains("test"), "\(error)")
        }
        await pool.close()
    }

    @Test("the system resolver gives every address of a name, and an address as itself")
    func systemResolver() async throws {
        #expect(try await HostResolver.system.addresses("localhost").contains("127.0.0.1"))
        #expect(try await HostResolver.system.addresses("10.1.2.3") == ["10.1.2.3"])
        #expect(try await HostResolver.system.addresses("fd00::7") == ["fd00::7"])
        await #expect(throws: HostResolver.ResolutionFailure.self) {
            try await HostResolver.system.addresses("no-such-host.invalid")
        }
    }
}

struct PhaseFailure: Error, CustomStringConvertible {
    var description: String
}

/// A hosts file of the test's own (`address name` lines), read at every resolution, so that a
/// test can change what a name stands for as DNS would.
struct HostsFile {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("orderly-hosts-\(UUID().uuidString)")
    private let failed = Failures()

    /// How many resolutions found nothing.
    var failures: Int { failed.count.withLock { $0 } }

    private final class Failures: Sendable {
        let count = Mutex(0)
    }

    init(_ lines: [String]) throws { try write(lines) }

    func write(_ lines: [String]) throws {
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: url, options: .atomic)
    }

    func remove() { try? FileManager.default.removeItem(at: url) }

    /// Resolves names by this file alone: every address listed for the name, in file order.
    var resolver: HostResolver {
        let (url, failed) = (self.url, self.failed)
        return HostResolver { name in
            let text = try String(contentsOf: url, encoding: .utf8)
            let addresses = text.split(separator: "\n").compactMap { line -> String? in
                let fields = line.split(whereSeparator: \.isWhitespace)
                return fields.count >= 2 && fields.dropFirst().contains(Substring(name)) ? String(fields[0]) : nil
            }
            guard !addresses.isEmpty else {
                failed.count.withLock { $0 += 1 }
                throw HostResolver.ResolutionFailure(host: name, reason: "not in the file")
            }
            return addresses
        }
    }
}
