import Logging
import ServiceLifecycle

/// Releases reservations whose time ran out. The due time is stored with each reservation, so
/// nothing is lost with the process: at start the sweep finds whatever fell due while it was
/// down, then looks again every `interval`. A reservation outlives its expiry by at most
/// about one interval, and a commit after its expiry is refused even before the sweep comes.
struct ReservationSweep: Service {
    let handlers: CatalogHandlers
    let interval: Duration
    let logger: Logger

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                await sweep()
                try? await Task.sleep(for: interval)
            }
        }
    }

    /// Expires everything due now, a batch at a time; a failure is logged and tried next time.
    func sweep() async {
        do {
            var total = 0
            while true {
                let expired = try await handlers.expireDue()
                total += expired
                if expired < 100 || Task.isCancelled { break }
            }
            if total > 0 { logger.info("reservations expired", metadata: ["catalog.reservations": "\(total)"]) }
        } catch {
            if Task.isCancelled { return }
            logger.warning("the reservation sweep failed; trying again", metadata: ["error": "\(error)"])
        }
    }
}
