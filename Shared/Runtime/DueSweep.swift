public import Logging
public import ServiceLifecycle

/// Ends what fell due: reservations whose time ran out, pending payments that expired. The due
/// time is stored with each, so nothing is lost with the process: at start the sweep finds
/// whatever fell due while it was down, then looks again every `interval`. Something outlives
/// its time by at most about one interval; each service refuses to act on it after its time
/// even before the sweep comes.
public struct DueSweep: Service {
    /// What is swept, for the log: `reservations`, `payments`.
    let name: String
    let interval: Duration
    /// Ends a batch of what is due now (at most `batch`), returning how many it ended. Every
    /// replica may run it beside the others: each item ends under its own lock, once.
    let expire: @Sendable (_ batch: Int) async throws -> Int
    let logger: Logger

    public static let batch = 100

    public init(
        _ name: String, every interval: Duration, logger: Logger,
        expire: @escaping @Sendable (_ batch: Int) async throws -> Int
    ) {
        self.name = name
        self.interval = interval
        self.expire = expire
        self.logger = logger
    }

    public func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                await sweep()
                try? await Task.sleep(for: interval)
            }
        }
    }

    /// Ends everything due now, a batch at a time; a failure is logged and tried next time.
    public func sweep() async {
        do {
            var total = 0
            while true {
                let ended = try await expire(Self.batch)
                total += ended
                if ended < Self.batch || Task.isCancelled { break }
            }
            if total > 0 { logger.info("\(name) expired", metadata: ["sweep.\(name)": "\(total)"]) }
        } catch {
            if Task.isCancelled { return }
            logger.warning("the \(name) sweep failed; trying again", metadata: ["error": "\(error)"])
        }
    }
}
