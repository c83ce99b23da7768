import Foundation
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle
import Synchronization

/// A webhook endpoint on this machine, as a store's system would run one: it keeps every POST
/// it receives (header names lower-cased) and answers with `status` (200 unless told otherwise).
final class WebhookReceiver: Sendable {
    struct Received: Sendable {
        var headers: [String: String]
        var body: String
    }

    private let state = Mutex<(received: [Received], status: Int)>(([], 200))
    /// While set, requests are kept (unanswered) until `release()`.
    private let holding = Mutex<(on: Bool, waiting: [CheckedContinuation<Void, Never>])>((false, []))
    private let running = Mutex<(group: ServiceGroup, task: Task<Void, Never>)?>(nil)
    private let portValue = Mutex(0)
    var port: Int { portValue.withLock { $0 } }

    var received: [Received] { state.withLock { $0.received } }

    /// What it answers from now on.
    func answer(_ status: Int) { state.withLock { $0.status = status } }

    /// Keeps every request from now on unanswered (a slow endpoint), until `release()`.
    func hold() { holding.withLock { $0.on = true } }

    /// Answers the requests kept, and those that come from now on at once.
    func release() {
        let waiting = holding.withLock { holding in
            defer { holding = (false, []) }
            return holding.waiting
        }
        for waiter in waiting { waiter.resume() }
    }

    /// Starts listening on a free port below the ephemeral range: an attempt to a port in that
    /// range while nothing listens there may connect to itself (a TCP simultaneous open) and
    /// then hold the port. Returns once it listens.
    static func start() async throws -> WebhookReceiver {
        let receiver = WebhookReceiver()
        var tried = 0
        while true {
            do {
                try await receiver.listen(port: Int.random(in: 20_000..<32_000))
                return receiver
            } catch {
                tried += 1
                if tried == 20 { throw error }
            }
        }
    }

    func listen(port: Int) async throws {
        let router = Router()
        router.post("hook") { request, context -> Response in
            let body = try await request.body.collect(upTo: 1 << 20)
            var headers: [String: String] = [:]
            for field in request.headers { headers[field.name.canonicalName.lowercased()] = field.value }
            let status = self.state.withLock { state in
                state.received.append(Received(headers: headers, body: String(buffer: body)))
                return state.status
            }
            await withCheckedContinuation { continuation in
                let now = self.holding.withLock { holding in
                    if holding.on { holding.waiting.append(continuation) }
                    return !holding.on
                }
                if now { continuation.resume() }
            }
            return Response(status: .init(code: status))
        }
        let (listening, heard) = AsyncStream.makeStream(of: Int.self)
        var logger = Logger(label: "tests.webhook-receiver")
        logger.logLevel = .warning
        let app = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: port)),
            onServerRunning: { channel in heard.yield(channel.localAddress?.port ?? 0) }, logger: logger)
        let group = ServiceGroup(
            configuration: .init(services: [.init(service: app)], gracefulShutdownSignals: [], logger: logger))
        let run = Task { () -> String in
            defer { heard.finish() }
            do {
                try await group.run()
                return "it stopped"
            } catch {
                return "\(error)"
            }
        }
        running.withLock { $0 = (group, Task { _ = await run.value }) }
        for await bound in listening {
            portValue.withLock { $0 = bound }
            return
        }
        throw ReceiverError(reason: "the receiver did not listen on port \(port): \(await run.value)")
    }

    struct ReceiverError: Error {
        var reason: String
    }

    /// Stops listening (the port is refused until it listens again).
    func stop() async {
        guard
            let (group, task) = running.withLock({ running in
                defer { running = nil }
                return running
            })
        else { return }
        await group.triggerGracefulShutdown()
        await task.value
    }
}
