import Domain

/// The payment providers whose signed reports are accepted, each with its signing secret:
/// `ORDERLY_PAYMENT_PROVIDER_SECRETS=name=secret[,name=secret…]`, from the environment only. Read
/// by the payments service, and by the load generator, which plays a provider.
public enum ProviderSecrets {
    static let key = "payment.provider.secrets"

    /// The secrets by provider name (none when unset), each name 1 to 40 letters, digits, `-` and
    /// `_`, each secret at least 16 characters; a bad entry is reported without echoing a secret.
    public static func read(into reader: inout SettingsReader) -> [String: String] {
        var secrets: [String: String] = [:]
        guard let text = reader.optionalSecret(key) else { return secrets }
        for (index, entry) in text.split(separator: ",", omittingEmptySubsequences: false).enumerated() {
            let parts = entry.split(separator: "=", maxSplits: 1).map { String($0).trimmingWhitespace() }
            guard parts.count == 2, isProviderName(parts[0]) else {
                reader.report(key, "entry \(index + 1) is not name=secret (names: letters, digits, - and _)")
                continue
            }
            guard parts[1].utf8.count >= 16 else {
                reader.report(key, "the secret of \(parts[0]) must be at least 16 characters")
                continue
            }
            if secrets.updateValue(parts[1], forKey: parts[0]) != nil {
                reader.report(key, "\(parts[0]) is named twice")
            }
        }
        return secrets
    }

    /// The secrets in `source`.
    public static func read(from source: ConfigurationSource) throws(ConfigurationError) -> [String: String] {
        var reader = source.settings()
        let secrets = read(into: &reader)
        try reader.finish()
        return secrets
    }

    /// A provider's name: 1 to 40 letters, digits, `-` and `_`.
    static func isProviderName(_ name: String) -> Bool {
        (1...40).contains(name.utf8.count)
            && name.utf8.allSatisfy {
                (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0)
                    || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0)
                    || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || $0 == UInt8(ascii: "-")
                    || $0 == UInt8(ascii: "_")
            }
    }
}
