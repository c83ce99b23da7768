public import Logging
public import ServiceLifecycle

/// Runs a process's long-lived parts until SIGTERM or SIGINT, then shuts them down gracefully in
/// reverse order: list them in dependency order (what others need first). The shutdown has an
/// end: what has not stopped `margin` after the requests in flight were given (`drain`,
/// `ORDERLY_SHUTDOWN_GRACE_SECONDS`) is cancelled, and what ignores cancellation for `margin`
/// more stops the process with an error; 40 s by default, the manifests'
/// `terminationGracePeriodSeconds`. No part holds the process up for ever.
public enum ServiceRunner {
    public static let margin = Duration.seconds(5)

    public static func run(_ services: [any Service], drain: Duration, logger: Logger) async throws {
        try await group(services, graceful: drain + margin, cancellation: margin, logger: logger).run()
    }

    /// The group `run` runs: cancelled once a graceful shutdown has taken `graceful`, stopped
    /// with an error once cancellation has taken `cancellation`.
    public static func group(
        _ services: [any Service], graceful: Duration, cancellation: Duration, logger: Logger
    ) -> ServiceGroup {
        var configuration = ServiceGroupConfiguration(
            services: services.map { ServiceGroupConfiguration.ServiceConfiguration(service: $0) },
            gracefulShutdownSignals: [.sigterm, .sigint],
            logger: logger)
        configuration.maximumGracefulShutdownDuration = graceful
        configuration.maximumCancellationDuration = cancellation
        return ServiceGroup(configuration: configuration)
    }
}
