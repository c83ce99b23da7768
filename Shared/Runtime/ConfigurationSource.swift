import Configuration
public import Foundation
import SystemPackage

/// Where settings come from, highest priority first: command-line flags (`--wire-port 7101`),
/// environment variables (`ORDERLY_WIRE_PORT`), a JSON file named by `ORDERLY_CONFIG_FILE`
/// (`{"wire": {"port": 7101}}`); keys are camelCase (`wire.maxFrameBytes`), then the built-in defaults. Secrets come from the environment
/// only.
///
/// Every value is validated: a malformed one is an error naming the variable and what was
/// expected, never a silent fall-back to the default.
public struct ConfigurationSource: Sendable {
    private let reader: ConfigReader
    private let secretReader: ConfigReader

    /// Reads the process's arguments and environment (and the file, if one is named).
    public static func load(
        arguments: [String] = CommandLine.arguments, environment: [String: String] = ProcessInfo.processInfo.environment
    ) async throws -> ConfigurationSource {
        let environmentProvider = EnvironmentVariablesProvider(environmentVariables: environment)
            .prefixKeys(with: ["orderly"])
        var providers: [any ConfigProvider] = [
            CommandLineArgumentsProvider(arguments: arguments),
            environmentProvider,
        ]
        if let path = environment["ORDERLY_CONFIG_FILE"], !path.isEmpty {
            do {
                providers.append(try await FileProvider<JSONSnapshot>(filePath: FilePath(path)))
            } catch {
                throw ConfigurationError(problems: ["ORDERLY_CONFIG_FILE: cannot read '\(path)': \(error)"])
            }
        }
        return ConfigurationSource(
            reader: ConfigReader(providers: providers),
            secretReader: ConfigReader(
                provider: EnvironmentVariablesProvider(
                    environmentVariables: environment,
                    secretsSpecifier: .dynamic { key, _ in key.hasSuffix("SECRET") || key.hasSuffix("PASSWORD") }
                ).prefixKeys(with: ["orderly"])))
    }

    /// A source over fixed values (tests), keyed as in the file: `wire.port`.
    public static func fixed(_ values: [String: String]) -> ConfigurationSource {
        var environment: [String: String] = [:]
        for (key, value) in values { environment[SettingsReader.variable(for: key)] = value }
        let provider = EnvironmentVariablesProvider(environmentVariables: environment).prefixKeys(with: ["orderly"])
        return ConfigurationSource(
            reader: ConfigReader(provider: provider), secretReader: ConfigReader(provider: provider))
    }

    /// Starts reading; collect the values, then call `SettingsReader.finish()`.
    public func settings() -> SettingsReader { SettingsReader(reader: reader, secretReader: secretReader) }
}
