import Logging
import ServiceLifecycle
import Wire

/// Reads the Wire TLS files again every minute and, when they changed (a renewed certificate,
/// an authority rolled over), serves and calls with them from the next connection on, without a
/// restart; the expiry metric follows. Files that do not make a TLS context are logged and the
/// previous ones kept.
struct WireTLSReloader: Service {
    let tls: WireTLS
    let interval: Duration
    let logger: Logger
    /// After each reload: the metrics of the new certificates.
    let reloaded: @Sendable () -> Void

    func run() async throws {
        // A shutdown ends the wait at once (Task.sleep throws when cancelled).
        try? await cancelWhenGracefulShutdown {
            while true {
                try await Task.sleep(for: interval)
                reload()
            }
        }
    }

    func reload() {
        do {
            if try tls.reloadIfChanged() {
                reloaded()
                logger.notice(
                    "Wire TLS files reloaded: new connections use them",
                    metadata: ["tls.certificate.expiry": "\(tls.certificateExpiry)"])
            }
        } catch {
            logger.error(
                "Wire TLS files changed but make no TLS context: the previous ones are kept",
                metadata: ["error": "\(error)"])
        }
    }
}
