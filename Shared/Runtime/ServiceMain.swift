import Foundation
public import Logging
import NIOCore
import NIOPosix
import Redis
import SQLKit
public import ServiceLifecycle
import Storage
import Wire

/// The entry point every service executable calls: reads the settings (printing every problem
/// and exiting with status 2 when they are wrong), sets up logging and metrics, builds the
/// service's parts and runs them until SIGTERM or SIGINT.
public enum ServiceMain {
    public static func run(
        service: String, wirePort: Int, adminPort: Int, upstreams: [String: String] = [:],
        build: (ServiceSettings, ConfigurationSource, Logger) async throws -> [any Service]
    ) async -> Never {
        // Swift tasks run on NIO's event loops rather than a second thread pool.
        NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()
        let settings: ServiceSettings
        let source: ConfigurationSource
        do {
            source = try await ConfigurationSource.load()
            settings = try ServiceSettings.read(
                service: service, defaultWirePort: wirePort, defaultAdminPort: adminPort, upstreams: upstreams,
                from: source)
        } catch {
            FileHandle.standardError.write(Data("orderly-\(service): \(error)\n".utf8))
            exit(2)
        }
        bootstrapLogging(
            format: settings.process.logFormat, level: settings.process.logLevel, service: service,
            metadataProvider: TracingSetup.loggingMetadata())
        MetricsExporter.bootstrap()
        var logger = Logger(label: "orderly.\(service)")
        logger[metadataKey: "service.instance"] = "\(settings.instance)"
        do {
            let exporter = try TracingSetup.bootstrap(service: service, logger: logger)
            let services = (exporter.map { [$0] } ?? []) + (try await build(settings, source, logger))
            try await ServiceRunner.run(
                services, drain: .nanoseconds(settings.process.shutdownGracePeriod.nanoseconds), logger: logger)
            exit(0)
        } catch let error as ConfigurationError {
            FileHandle.standardError.write(Data("orderly-\(service): \(error)\n".utf8))
            exit(2)
        } catch {
            logger.critical("stopped by an error", metadata: ["error": "\(error)"])
            exit(1)
        }
    }
}

extension ServiceMain {
    /// Runs `service` as this process until SIGTERM or SIGINT.
    public static func run<Definition: ServiceDefinition>(_ service: Definition.Type) async -> Never {
        await run(
            service: service.name, wirePort: service.wirePort, adminPort: service.adminPort,
            upstreams: service.upstreams
        ) { settings, source, logger in
            try await service.services(settings: settings, configuration: source, logger: logger)
        }
    }
}
