public import Logging
public import ServiceLifecycle

/// Runs a process's long-lived parts until SIGTERM or SIGINT, then shuts them down gracefully in
/// reverse order: list them in dependency order (what others need first).
public enum ServiceRunner {
    public static func run(_ services: [any Service], logger: Logger) async throws {
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: services.map { ServiceGroupConfiguration.ServiceConfiguration(service: $0) },
                gracefulShutdownSignals: [.sigterm, .sigint],
                logger: logger))
        try await group.run()
    }
}
