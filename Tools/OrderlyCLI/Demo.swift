import ArgumentParser
import Domain
import Foundation
import Logging
import NIOCore
import Runtime
import ServiceLifecycle
import Wire

/// `orderly demo serve` and `orderly demo call`: two Wire processes that `make run` starts until
/// the real services take their place.
struct Demo: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "A demo pair of Wire processes.", subcommands: [Serve.self, Call.self])

    struct Serve: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Serve demo.echo and demo.clock over Wire.")

        func run() async throws {
            let settings = try Demo.settings(
                service: "demo-server", wirePort: 7100, adminPort: 9100, from: try await ConfigurationSource.load())
            let logger = Logger(label: "orderly.demo-server")
            var router = WireRouter()
            router.register(DemoAPI.echo) { request, context in
                context.logger.debug("echo")
                return DemoEcho(text: request.text)
            }
            router.register(DemoAPI.clock) { _, _ in DemoClock(now: Date()) }
            let server = WireServer(configuration: settings.wireServer, router: router, logger: logger)
            let admin = AdminServer(host: settings.adminHost, port: settings.adminPort, checks: [], logger: logger)
            try await ServiceRunner.run([admin, server], logger: logger)
        }
    }

    struct Call: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Call the demo server once a second.")

        func run() async throws {
            let source = try await ConfigurationSource.load()
            var reader = source.settings()
            let address = reader.string("demo.address", default: "127.0.0.1:7100")
            if WireEndpoint(address) == nil { reader.report("demo.address", "expected host:port, got '\(address)'") }
            try reader.finish()
            let settings = try Demo.settings(service: "demo-caller", wirePort: 0, adminPort: 9101, from: source)
            let logger = Logger(label: "orderly.demo-caller")
            let client = WireClient(
                configuration: WireClientConfiguration(
                    service: "demo-server", endpoints: [WireEndpoint(address)!], callerService: settings.service,
                    secret: settings.internalSecret),
                logger: logger)
            let admin = AdminServer(
                host: settings.adminHost, port: settings.adminPort,
                checks: [ReadinessCheck("demo-server") { try await client.ping() }], logger: logger)
            try await ServiceRunner.run([admin, Caller(client: client, logger: logger)], logger: logger)
        }
    }

    /// Reads the process settings and sets up logging and metrics, or explains what is wrong.
    static func settings(
        service: String, wirePort: Int, adminPort: Int, from source: ConfigurationSource
    ) throws -> ProcessSettings {
        do {
            let settings = try ProcessSettings.read(
                service: service, defaultWirePort: wirePort, defaultAdminPort: adminPort, from: source)
            bootstrapLogging(format: settings.logFormat, level: settings.logLevel, service: service)
            MetricsExporter.bootstrap()
            return settings
        } catch let error as ConfigurationError {
            throw ValidationError(error.description)
        }
    }
}

/// Calls `demo.echo` once a second and logs how it went, until shutdown.
struct Caller: Service {
    let client: WireClient
    let logger: Logger

    func run() async throws {
        var count = 0
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            count += 1
            let started = ContinuousClock.now
            do {
                let answer = try await client.call(DemoAPI.echo, DemoEcho(text: "hello #\(count)"))
                logger.info(
                    "demo.echo answered",
                    metadata: [
                        "answer": "\(answer.text)", "rpc.duration": "\(ContinuousClock.now - started)",
                    ])
            } catch {
                logger.warning("demo.echo failed", metadata: ["error": "\(error)"])
            }
            try? await Task.sleep(for: .seconds(1))
        }
        await client.close()
    }
}

struct DemoEcho: Codable, Sendable {
    var text: String
}

struct DemoClock: Codable, Sendable {
    var now: Date
}

enum DemoAPI {
    static let echo = WireMethod<DemoEcho, DemoEcho>("demo.echo", safeToRetry: true)
    static let clock = WireMethod<WireEmpty, DemoClock>("demo.clock", safeToRetry: true)
}
