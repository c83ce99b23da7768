import Foundation
public import Logging
import NIOCore
import NIOPosix
import Redis
import SQLKit
public import ServiceLifecycle
public import Storage
import Wire

/// The entry point every service executable calls: reads the settings (printing every problem
/// and exiting with status 2 when they are wrong), sets up logging and metrics, builds the
/// service's parts and runs them until SIGTERM or SIGINT.
///
/// Before any setting is read, an unknown `ORDERLY_*` variable or flag stops it. `--version`
/// prints the release and revision, `--help` the settings it reads; `migrate status` says where
/// the database's schema stands against this build, `migrate up` brings it up to date (the
/// pre-deploy step of docs/OPERATIONS.md, "Upgrading") and `backup <new file>` copies its SQLite
/// database, each on the settings the service reads, and exits.
public enum ServiceMain {
    public static func run(
        service: String, wirePort: Int, adminPort: Int, upstreams: [String: String] = [:], migrations: [Migration],
        build: (ServiceSettings, ConfigurationSource, Logger) async throws -> [any Service]
    ) async -> Never {
        let program = "orderly-\(service)"
        var arguments = CommandLine.arguments
        if arguments.dropFirst().first == "--version" {
            print(BuildInfo.line(program))
            exit(0)
        }
        if arguments.dropFirst().contains(where: { $0 == "--help" || $0 == "-h" }) {
            print(help(program: program, service: service))
            exit(0)
        }
        var command: String?
        var backupPath: String?
        if arguments.dropFirst().first == "migrate" {
            guard arguments.count >= 3, ["status", "up"].contains(arguments[2]) else {
                FileHandle.standardError.write(Data("usage: \(program) migrate status|up [settings]\n".utf8))
                exit(2)
            }
            command = arguments[2]
            arguments.removeSubrange(1...2)
        } else if arguments.dropFirst().first == "backup" {
            guard arguments.count >= 3, !arguments[2].hasPrefix("-") else {
                FileHandle.standardError.write(Data("usage: \(program) backup <new file> [settings]\n".utf8))
                exit(2)
            }
            backupPath = arguments[2]
            arguments.removeSubrange(1...2)
        }
        // Swift tasks run on NIO's event loops rather than a second thread pool.
        NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()
        let settings: ServiceSettings
        let source: ConfigurationSource
        do {
            let unknown = ConfigurationSource.unknownSettings(
                arguments: arguments, environment: ProcessInfo.processInfo.environment)
            guard unknown.isEmpty else { throw ConfigurationError(problems: unknown) }
            source = try await ConfigurationSource.load(arguments: arguments)
            settings = try ServiceSettings.read(
                service: service, defaultWirePort: wirePort, defaultAdminPort: adminPort, upstreams: upstreams,
                from: source)
        } catch {
            FileHandle.standardError.write(Data("\(program): \(error)\n".utf8))
            exit(2)
        }
        bootstrapLogging(
            format: settings.process.logFormat, level: settings.process.logLevel, service: service,
            metadataProvider: TracingSetup.loggingMetadata())
        if let command {
            await migrate(command, service: service, migrations: migrations, settings: settings)
        }
        if let backupPath {
            await backup(to: backupPath, service: service, settings: settings)
        }
        MetricsExporter.bootstrap()
        BuildInfo.record()
        var logger = Logger(label: "orderly.\(service)")
        logger[metadataKey: "service.instance"] = "\(settings.instance)"
        do {
            let exporter = try TracingSetup.bootstrap(service: service, logger: logger)
            let services = (exporter.map { [$0] } ?? []) + (try await build(settings, source, logger))
            logger.info("settings", metadata: ["settings": "\(source.effectiveSettings)"])
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
    /// `--help`: how to run it, and every setting it reads from the catalogue, as
    /// docs/CONFIGURATION.md shows them.
    static func help(program: String, service: String) -> String {
        var lines = [
            BuildInfo.line(program), "",
            "usage: \(program) [--setting value …]   runs the \(service) service until SIGTERM or SIGINT",
            "       \(program) migrate status|up     where its database's schema stands; apply what is missing",
            "       \(program) backup <new file>     a consistent copy of its SQLite database, while it runs",
            "       \(program) --version | --help", "",
            "Settings: a flag (--wire-port 7201), the environment (ORDERLY_WIRE_PORT=7201) or the JSON file",
            "ORDERLY_CONFIG_FILE names; a secret from the environment, or from the file <VARIABLE>_FILE names.",
            "Any other ORDERLY_* variable or flag stops the start. docs/CONFIGURATION.md says the same.",
        ]
        for setting in SettingsCatalogue.settings(of: service) {
            lines += ["", "  " + plain(setting.name), "      default: " + plain(setting.defaultValue)]
            lines.append("      " + plain(setting.meaning))
        }
        return lines.joined(separator: "\n")
    }

    /// Markdown's backticks and escaped bars left out, for a terminal.
    static func plain(_ markdown: String) -> String {
        markdown.replacingOccurrences(of: "`", with: "").replacingOccurrences(of: "\\|", with: "|")
    }

    /// `backup <new file>`: a consistent copy of the service's SQLite database, taken while it runs
    /// (`Database.backup(to:)`); for PostgreSQL, the error says to use pg_dump.
    static func backup(to path: String, service: String, settings: ServiceSettings) async -> Never {
        let logger = Logger(label: "orderly.\(service).backup")
        do {
            let started = ContinuousClock.now
            let database = try await Database.open(settings.database, logger: logger)
            let size = try await database.backup(to: path)
            await database.close()
            let took = (ContinuousClock.now - started) / .milliseconds(1)
            print("\(service): backed up \(settings.database) to \(path), \(size) bytes in \(Int(took)) ms")
            exit(0)
        } catch {
            FileHandle.standardError.write(Data("orderly-\(service) backup: \(error)\n".utf8))
            exit(1)
        }
    }

    /// `migrate status|up`: prints where the schema stands (status 0, or 1 when this build cannot
    /// run on it), or applies what is missing and prints what it applied.
    static func migrate(_ command: String, service: String, migrations: [Migration], settings: ServiceSettings) async
        -> Never
    {
        let logger = Logger(label: "orderly.\(service).migrate")
        do {
            let database = try await Database.open(settings.database, logger: logger)
            if command == "up" {
                let applied = try await database.migrate(scope: service, migrations)
                print(
                    applied.isEmpty
                        ? "\(service): nothing to apply"
                        : "\(service): applied " + applied.map(String.init).joined(separator: ", "))
            }
            let status = try await database.migrationStatus(scope: service, migrations)
            print(status.summary)
            await database.close()
            exit(status.unreadable == nil ? 0 : 1)
        } catch {
            FileHandle.standardError.write(Data("orderly-\(service) migrate \(command): \(error)\n".utf8))
            exit(1)
        }
    }

    /// Runs `service` as this process until SIGTERM or SIGINT.
    public static func run<Definition: ServiceDefinition>(_ service: Definition.Type) async -> Never {
        await run(
            service: service.name, wirePort: service.wirePort, adminPort: service.adminPort,
            upstreams: service.upstreams, migrations: service.migrations
        ) { settings, source, logger in
            try await service.services(settings: settings, configuration: source, logger: logger)
        }
    }
}
