public import Domain
import Foundation
import WireContract

/// A device to register: `platform` (`ios`), its push `token` (hex), the app's `bundle_id`,
/// the push `environment` (`sandbox` or `production`) and the `locale` to write in (the
/// user's when absent).
public struct DeviceDraft: Codable, Sendable, Hashable {
    public var platform: String?
    public var token: String?
    public var bundleID: String?
    public var environment: String?
    public var locale: String?

    public init(platform: String?, token: String?, bundleID: String?, environment: String?, locale: String? = nil) {
        self.platform = platform
        self.token = token
        self.bundleID = bundleID
        self.environment = environment
        self.locale = locale
    }

    enum CodingKeys: String, CodingKey {
        case platform, token, environment, locale
        case bundleID = "bundle_id"
    }

    /// The checked request, every bad field named at once: a platform of
    /// `DevicesAPI.platforms`, a push token (`isToken`, answered lower-cased), a bundle id
    /// (`isBundleID`) of one of `bundleIDs`, the deployment's apps (`push.bundleIds`), an
    /// environment of `DevicesAPI.environments`, and a BCP 47 locale when one is given.
    public func validated(bundleIDs: Set<String>) throws(OrderlyError) -> ValidDeviceDraft {
        var problems = FieldProblems()
        let platform = problems.required(platform, "platform")
        if let platform, !DevicesAPI.platforms.contains(platform) {
            problems.add("platform", "must be one of " + DevicesAPI.platforms.joined(separator: ", "))
        }
        let token = problems.required(token, "token")
        if let token, !Self.isToken(token) {
            problems.add("token", "must be 16 to 200 hexadecimal digits, an even number")
        }
        let bundle = problems.required(bundleID, "bundle_id")
        if let bundle, !Self.isBundleID(bundle) {
            problems.add("bundle_id", "must be an app's bundle id: letters, digits, '.', '-', at most 155")
        } else if let bundle, !bundleIDs.contains(bundle) {
            problems.add(
                "bundle_id",
                bundleIDs.isEmpty
                    ? "is of no app this deployment pushes to (the operator lists them in ORDERLY_PUSH_BUNDLE_IDS)"
                    : "must be one of this deployment's apps: " + bundleIDs.sorted().joined(separator: ", "))
        }
        let environment = problems.required(environment, "environment")
        if let environment, !DevicesAPI.environments.contains(environment) {
            problems.add("environment", "must be one of " + DevicesAPI.environments.joined(separator: ", "))
        }
        if let locale { problems.locale(locale) }
        guard let platform, let token, let bundle, let environment, problems.isEmpty else { throw problems.failure }
        return ValidDeviceDraft(
            platform: platform, token: token.lowercased(), bundleID: bundle, environment: environment, locale: locale)
    }

    /// A push token as apps send it: ASCII hex, whole bytes.
    public static func isToken(_ text: String) -> Bool {
        (16...200).contains(text.utf8.count) && Hex.bytes(text) != nil
    }

    /// An app's bundle id: reverse-DNS letters, digits, dots and hyphens.
    public static func isBundleID(_ text: String) -> Bool {
        (1...155).contains(text.utf8.count)
            && text.unicodeScalars.allSatisfy {
                ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "."
                    || $0 == "-"
            }
    }
}

/// A device registration as `DeviceDraft.validated(bundleIDs:)` checked it: every field
/// present and well formed, the token lower-cased.
public struct ValidDeviceDraft: Sendable, Hashable {
    public var platform: String
    public var token: String
    public var bundleID: String
    public var environment: String
    public var locale: String?
}
