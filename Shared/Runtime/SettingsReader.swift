import Configuration
import Foundation
import SystemPackage

/// Reads typed settings and collects every problem, so that one start reports them all.
///
/// Every key is one of `SettingsCatalogue`'s (another is reported as a problem: the catalogue is
/// what `--help` and the documentation show), and what each read found is kept for the log line
/// of the effective settings.
public struct SettingsReader {
    private let reader: ConfigReader
    private let secretReader: ConfigReader
    private let environment: [String: String]
    private let effective: EffectiveSettings
    private var problems: [String] = []

    init(reader: ConfigReader, secretReader: ConfigReader, environment: [String: String], effective: EffectiveSettings)
    {
        self.reader = reader
        self.secretReader = secretReader
        self.environment = environment
        self.effective = effective
    }

    /// The environment variable a key is read from, for messages.
    /// `wire.maxFrameBytes` is read from `ORDERLY_WIRE_MAX_FRAME_BYTES` (and `--wire-max-frame-bytes`).
    public static func variable(for key: String) -> String {
        var name = "ORDERLY"
        for component in key.split(separator: ".") {
            name += "_"
            for character in component {
                if character.isUppercase { name += "_" }
                name += character.uppercased()
            }
        }
        return name
    }

    private mutating func raw(_ key: String) -> String? {
        catalogued(key)
        return lookup(key)
    }

    /// The value of `key` from the flags, the environment or the file, as text.
    private func lookup(_ key: String) -> String? {
        let configKey = ConfigKey(key.split(separator: ".").map(String.init))
        if let text = reader.string(forKey: configKey) { return text }
        if let number = reader.int(forKey: configKey) { return String(number) }
        if let flag = reader.bool(forKey: configKey) { return String(flag) }
        return nil
    }

    /// Reports a key the catalogue does not have: a setting nobody could find in `--help`.
    private mutating func catalogued(_ key: String) {
        let variable = Self.variable(for: key)
        if !SettingsCatalogue.variables.contains(variable) {
            problems.append("\(variable) (\(key)) is read but not in Shared/Runtime/SettingsCatalogue.swift")
        }
    }

    /// Keeps what was found for `key`, for the log line of the effective settings.
    private func found(_ key: String, _ value: String?) {
        effective.record(Self.variable(for: key), value ?? "(none)")
    }

    /// A secret from the environment, or from the file `<VARIABLE>_FILE` names (its text less a
    /// final line break); nil when neither is set. Never echoed.
    private mutating func secretValue(_ key: String) -> String? {
        catalogued(key)
        let variable = Self.variable(for: key)
        let direct = secretReader.string(forKey: ConfigKey(key.split(separator: ".").map(String.init)), isSecret: true)
        effective.record(variable, direct == nil && environment[variable + "_FILE"] == nil ? "(none)" : "(secret)")
        guard let path = environment[variable + "_FILE"], !path.isEmpty else { return direct }
        guard direct == nil else {
            problems.append("\(variable) and \(variable)_FILE are both set: give one")
            return nil
        }
        guard var text = try? String(contentsOfFile: path, encoding: .utf8) else {
            problems.append("\(variable)_FILE: cannot read '\(path)'")
            return nil
        }
        while text.hasSuffix("\n") || text.hasSuffix("\r") { text.removeLast() }
        if text.isEmpty { problems.append("\(variable)_FILE: '\(path)' is empty") }
        return text
    }

    private mutating func problem(_ key: String, _ expected: String, got text: String) {
        problems.append("\(Self.variable(for: key)) (\(key)): expected \(expected), got '\(text)'")
    }

    /// A string; `default` when unset.
    public mutating func string(_ key: String, default defaultValue: String) -> String {
        let text = raw(key)
        found(key, text ?? defaultValue)
        guard let text else { return defaultValue }
        guard !text.isEmpty else {
            problem(key, "a non-empty value", got: text)
            return defaultValue
        }
        return text
    }

    /// A string that may be absent; nil when unset.
    public mutating func optionalString(_ key: String) -> String? {
        let text = raw(key)
        found(key, text)
        guard let text else { return nil }
        guard !text.isEmpty else {
            problem(key, "a non-empty value", got: text)
            return nil
        }
        return text
    }

    /// An integer within `range`; `default` when unset.
    public mutating func int(_ key: String, default defaultValue: Int, in range: ClosedRange<Int>) -> Int {
        let text = raw(key)
        found(key, text ?? String(defaultValue))
        guard let text else { return defaultValue }
        guard let value = Int(text.trimmingCharacters(in: .whitespaces)), range.contains(value) else {
            problem(key, "an integer from \(range.lowerBound) to \(range.upperBound)", got: text)
            return defaultValue
        }
        return value
    }

    /// One of a fixed set of values; `default` when unset.
    public mutating func choice<Value: RawRepresentable & CaseIterable>(
        _ key: String, default defaultValue: Value
    ) -> Value where Value.RawValue == String {
        let text = raw(key)
        found(key, text ?? defaultValue.rawValue)
        guard let text else { return defaultValue }
        guard let value = Value(rawValue: text.lowercased()) else {
            problem(key, "one of " + Value.allCases.map(\.rawValue).joined(separator: ", "), got: text)
            return defaultValue
        }
        return value
    }

    /// A secret, read from the environment only and never echoed in errors.
    public mutating func secret(_ key: String) -> String? {
        let value = secretValue(key)
        guard let value, !value.isEmpty else {
            let variable = Self.variable(for: key)
            if environment[variable + "_FILE"] == nil {
                problems.append("\(variable) must be set in the environment (or \(variable)_FILE to a file holding it)")
            }
            return nil
        }
        return value
    }

    /// A secret that may be absent, read from the environment only and never echoed in errors.
    public mutating func optionalSecret(_ key: String) -> String? {
        let value = secretValue(key)
        return value?.isEmpty == false ? value : nil
    }

    /// A URL that may carry a password (`scheme://user:password@host…`): taken from the
    /// environment when set there, password and all; from a flag or the file only without a
    /// password, which would otherwise sit in a file or a process listing. `default` when unset.
    /// Problems never echo the value.
    public mutating func urlWithCredentials(_ key: String, default defaultValue: String) -> String {
        if let fromEnvironment = secretValue(key), !fromEnvironment.isEmpty {
            found(key, Self.redacted(fromEnvironment))
            return fromEnvironment
        }
        let text = lookup(key)  // secretValue checked the key against the catalogue
        found(key, Self.redacted(text ?? defaultValue))
        guard let text else { return defaultValue }
        if Self.hasPassword(text) {
            problems.append(
                "\(Self.variable(for: key)) (\(key)): a URL with a password is read from the environment only")
            return defaultValue
        }
        return text
    }

    /// `url` with its password, if any, shown as `(secret)`: `postgres://orderly:(secret)@db/orders`.
    static func redacted(_ url: String) -> String {
        guard let password = passwordRange(in: url) else { return url }
        return url.replacingCharacters(in: password, with: "(secret)")
    }

    /// Whether `url` has a password in its authority (`scheme://[user]:password@host`).
    static func hasPassword(_ url: String) -> Bool { passwordRange(in: url) != nil }

    /// Where the password of `url`'s authority is (`scheme://[user]:password@host`), if it has one.
    private static func passwordRange(in url: String) -> Range<String.Index>? {
        guard let scheme = url.range(of: "://") else { return nil }
        let authority = url[scheme.upperBound...].prefix { $0 != "/" && $0 != "?" }
        guard let at = authority.lastIndex(of: "@"), let colon = authority[..<at].firstIndex(of: ":") else {
            return nil
        }
        return authority.index(after: colon)..<at
    }

    /// Records a problem found by the caller's own checks.
    public mutating func report(_ key: String, _ message: String) {
        problems.append("\(Self.variable(for: key)) (\(key)): \(message)")
    }

    /// Throws every problem found, if any.
    public func finish() throws(ConfigurationError) {
        guard problems.isEmpty else { throw failure }
    }

    /// Whether nothing was reported. A required setting read as nil has been reported, so unwrap
    /// it together with the check: `guard let secret, reader.isClean else { throw reader.failure }`.
    public var isClean: Bool { problems.isEmpty }

    /// Every problem found.
    public var failure: ConfigurationError { ConfigurationError(problems: problems) }
}
