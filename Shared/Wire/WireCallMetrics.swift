import Domain
import Metrics
import NIOCore
import Synchronization

/// A Wire client's calls counted and timed by method and outcome (`ok` or the error's code),
/// retries included; each label set's counter and timer made once.
final class WireCallMetrics: Sendable {
    private struct Key: Hashable {
        var method: String
        var outcome: String
    }

    private let service: String
    private let made = Mutex<[Key: (Counter, Metrics.Timer)]>([:])

    init(service: String) { self.service = service }

    /// Runs `call`, counting and timing it as `method`.
    func measure<Result>(_ method: String, _ call: () async throws -> Result) async throws -> Result {
        let started = NIODeadline.now()
        do {
            let result = try await call()
            record(method, "ok", since: started)
            return result
        } catch {
            record(method, (error as? OrderlyError)?.code.rawValue ?? "internal", since: started)
            throw error
        }
    }

    private func record(_ method: String, _ outcome: String, since started: NIODeadline) {
        let key = Key(method: method, outcome: outcome)
        let (counter, timer) = made.withLock { made in
            if let found = made[key] { return found }
            let dimensions = [("service", service), ("method", method), ("outcome", outcome)]
            let metrics = (
                Counter(label: "orderly_wire_client_calls_total", dimensions: dimensions),
                Metrics.Timer(label: "orderly_wire_client_call_duration_seconds", dimensions: dimensions)
            )
            made[key] = metrics
            return metrics
        }
        counter.increment()
        timer.recordNanoseconds((NIODeadline.now() - started).nanoseconds)
    }
}
