import Configuration
public import Foundation
import Synchronization
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
    /// The environment, for secrets read from files (`<VARIABLE>_FILE`).
    private let environment: [String: String]
    /// What every reader of this source found, for the log line of the effective settings.
    let effective = EffectiveSettings()

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
                ).prefixKeys(with: ["orderly"])),
            environment: environment)
    }

    /// A source over fixed values (tests), keyed as in the file: `wire.port`.
    public static func fixed(_ values: [String: String]) -> ConfigurationSource {
        var environment: [String: String] = [:]
        for (key, value) in values { environment[SettingsReader.variable(for: key)] = value }
        let provider = EnvironmentVariablesProvider(environmentVariables: environment).prefixKeys(with: ["orderly"])
        return ConfigurationSource(
            reader: ConfigReader(provider: provider), secretReader: ConfigReader(provider: provider),
            environment: environment)
    }

    /// Starts reading; collect the values, then call `SettingsReader.finish()`.
    public func settings() -> SettingsReader {
        SettingsReader(reader: reader, secretReader: secretReader, environment: environment, effective: effective)
    }

    /// The effective settings read so far, `VARIABLE=value` in the variables' order, each secret
    /// shown as `(secret)`: what a process logs once it has started.
    public var effectiveSettings: String { effective.line }

    /// Every `ORDERLY_*` variable in `environment` and every flag in `arguments` that is no setting
    /// (`SettingsCatalogue`), each with the nearest one: a typo must not mean the default.
    public static func unknownSettings(arguments: [String], environment: [String: String]) -> [String] {
        var problems: [String] = []
        for name in environment.keys.sorted() where name.hasPrefix("ORDERLY_") {
            guard !SettingsCatalogue.variables.contains(name) else { continue }
            problems.append(
                "\(name): not a setting; did you mean \(nearest(to: name, in: SettingsCatalogue.variables))?")
        }
        let flags = Set(
            SettingsCatalogue.all.filter { $0.scope != .tools }.flatMap(\.variables).map {
                "--" + $0.dropFirst("ORDERLY_".count).lowercased().replacingOccurrences(of: "_", with: "-")
            })
        for argument in arguments.dropFirst() where argument.hasPrefix("--") {
            let flag = String(argument.prefix { $0 != "=" })
            guard !flags.contains(flag) else { continue }
            problems.append("\(flag): not a setting; did you mean \(nearest(to: flag, in: flags))?")
        }
        return problems
    }

    /// The candidate fewest edits away from `name` (Levenshtein), the first in order on a tie.
    static func nearest(to name: String, in candidates: Set<String>) -> String {
        let target = Array(name.utf8)
        var best = (distance: Int.max, candidate: "")
        for candidate in candidates.sorted() {
            let other = Array(candidate.utf8)
            var previous = Array(0...other.count)
            for (i, a) in target.enumerated() {
                var current = [i + 1] + Array(repeating: 0, count: other.count)
                for (j, b) in other.enumerated() {
                    current[j + 1] = min(previous[j + 1] + 1, current[j] + 1, previous[j] + (a == b ? 0 : 1))
                }
                previous = current
            }
            if previous[other.count] < best.distance { best = (previous[other.count], candidate) }
        }
        return best.candidate
    }
}

/// The values the readers of one source found, by variable, secrets as `(secret)`.
final class EffectiveSettings: Sendable {
    private let values = Mutex<[String: String]>([:])

    func record(_ variable: String, _ value: String) {
        values.withLock { $0[variable] = value }
    }

    var line: String {
        values.withLock { values in values.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" } }
            .joined(separator: " ")
    }
}
