import Configuration
import Foundation
import SystemPackage

/// Reads typed settings and collects every problem, so that one start reports them all.
public struct SettingsReader {
    private let reader: ConfigReader
    private let secretReader: ConfigReader
    private var problems: [String] = []

    init(reader: ConfigReader, secretReader: ConfigReader) {
        self.reader = reader
        self.secretReader = secretReader
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

    private func raw(_ key: String) -> String? {
        let configKey = ConfigKey(key.split(separator: ".").map(String.init))
        if let text = reader.string(forKey: configKey) { return text }
        if let number = reader.int(forKey: configKey) { return String(number) }
        if let flag = reader.bool(forKey: configKey) { return String(flag) }
        return nil
    }

    private mutating func problem(_ key: String, _ expected: String, got text: String) {
        problems.append("\(Self.variable(for: key)) (\(key)): expected \(expected), got '\(text)'")
    }

    /// A string; `default` when unset.
    public mutating func string(_ key: String, default defaultValue: String) -> String {
        guard let text = raw(key) else { return defaultValue }
        guard !text.isEmpty else {
            problem(key, "a non-empty value", got: text)
            return defaultValue
        }
        return text
    }

    /// A string that may be absent; nil when unset.
    public mutating func optionalString(_ key: String) -> String? {
        guard let text = raw(key) else { return nil }
        guard !text.isEmpty else {
            problem(key, "a non-empty value", got: text)
            return nil
        }
        return text
    }

    /// An integer within `range`; `default` when unset.
    public mutating func int(_ key: String, default defaultValue: Int, in range: ClosedRange<Int>) -> Int {
        guard let text = raw(key) else { return defaultValue }
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
        guard let text = raw(key) else { return defaultValue }
        guard let value = Value(rawValue: text.lowercased()) else {
            problem(key, "one of " + Value.allCases.map(\.rawValue).joined(separator: ", "), got: text)
            return defaultValue
        }
        return value
    }

    /// A secret, read from the environment only and never echoed in errors.
    public mutating func secret(_ key: String) -> String? {
        let value = secretReader.string(forKey: ConfigKey(key.split(separator: ".").map(String.init)), isSecret: true)
        guard let value, !value.isEmpty else {
            problems.append("\(Self.variable(for: key)) must be set in the environment")
            return nil
        }
        return value
    }

    /// A secret that may be absent, read from the environment only and never echoed in errors.
    public mutating func optionalSecret(_ key: String) -> String? {
        let value = secretReader.string(forKey: ConfigKey(key.split(separator: ".").map(String.init)), isSecret: true)
        return value?.isEmpty == false ? value : nil
    }

    /// A URL that may carry a password (`scheme://user:password@host…`): taken from the
    /// environment when set there, password and all; from a flag or the file only without a
    /// password, which would otherwise sit in a file or a process listing. `default` when unset.
    /// Problems never echo the value.
    public mutating func urlWithCredentials(_ key: String, default defaultValue: String) -> String {
        let configKey = ConfigKey(key.split(separator: ".").map(String.init))
        if let fromEnvironment = secretReader.string(forKey: configKey, isSecret: true), !fromEnvironment.isEmpty {
            return fromEnvironment
        }
        guard let text = raw(key) else { return defaultValue }
        if Self.hasPassword(text) {
            problems.append(
                "\(Self.variable(for: key)) (\(key)): a URL with a password is read from the environment only")
            return defaultValue
        }
        return text
    }

    /// Whether `url` has a password in its authority (`scheme://[user]:password@host`).
    static func hasPassword(_ url: String) -> Bool {
        guard let scheme = url.range(of: "://") else { return false }
        let authority = url[scheme.upperBound...].prefix { $0 != "/" && $0 != "?" }
        guard let at = authority.lastIndex(of: "@") else { return false }
        return authority[..<at].contains(":")
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
