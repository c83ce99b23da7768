import Logging
import Runtime
import ServiceLifecycle
import Testing

/// A process's shutdown has an end: a part that ignores the request to stop is cancelled once
/// the graceful limit has passed.
@Suite("Service runner", .timeLimit(.minutes(1)))
struct ServiceRunnerTests {
    /// A part that never looks at graceful shutdown, waiting an hour unless cancelled; it says
    /// when it has started.
    struct Stubborn: Service {
        let started: AsyncStream<Void>.Continuation

        func run() async throws {
            started.yield()
            try await Task.sleep(for: .seconds(3600))
        }
    }

    @Test("a part that does not stop when asked is cancelled after the limit, and the group ends")
    func bounded() async throws {
        let (starts, started) = AsyncStream<Void>.makeStream()
        let group = ServiceRunner.group(
            [Stubborn(started: started)], graceful: .milliseconds(200), cancellation: .seconds(20),
            logger: Logger(label: "test"))
        async let ran: Void = group.run()
        var waiting = starts.makeAsyncIterator()
        _ = await waiting.next()
        let asked = ContinuousClock.now
        await group.triggerGracefulShutdown()
        _ = try? await ran
        #expect(ContinuousClock.now - asked < .seconds(10))
    }
}
