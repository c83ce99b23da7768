import Contracts
import Foundation
public import JWTKit
import NIOSSL
public import Runtime

/// The notifications service's push settings: Apple's push notification service (APNs), with
/// token-based authentication. Pushes are off unless the key, its id and the team id are set.
///
/// | key | variable | default |
/// |---|---|---|
/// | `apns.key` | `ORDERLY_APNS_KEY` (environment only) | none: the `.p8` key's PEM text |
/// | `apns.keyFile` | `ORDERLY_APNS_KEY_FILE` | none: or the path of the `.p8` file |
/// | `apns.keyId` | `ORDERLY_APNS_KEY_ID` | none: the key's id (10 characters) |
/// | `apns.teamId` | `ORDERLY_APNS_TEAM_ID` | none: the developer team's id |
/// | `apns.productionUrl` | `ORDERLY_APNS_PRODUCTION_URL` | `https://api.push.apple.com` |
/// | `apns.sandboxUrl` | `ORDERLY_APNS_SANDBOX_URL` | `https://api.sandbox.push.apple.com` |
/// | `apns.trustFile` | `ORDERLY_APNS_TRUST_FILE` | none: the system's authorities only |
/// | `apns.retryBaseMilliseconds` | `ORDERLY_APNS_RETRY_BASE_MILLISECONDS` | 1000: the first retry's wait, doubled each time |
public struct APNsSettings: Sendable {
    public var key: ES256PrivateKey
    public var keyID: String
    public var teamID: String
    public var productionURL: String
    public var sandboxURL: String
    /// A PEM file of authorities trusted besides the system's (a test server's).
    public var trustFile: String?
    public var retryBase: Duration
    /// Attempts of one push before it is given up (the inbox still has it).
    public var attempts = 5
    /// How long one attempt may take, connection included.
    public var timeout: Duration = .seconds(10)
    /// How long a provider token is used before a new one is signed (Apple refuses one older
    /// than an hour, and more than one new token every 20 minutes).
    public var tokenLifetime: Duration = .seconds(50 * 60)
    /// How long Apple keeps a push for a device that is off, before giving it up.
    public var expiry: Duration = .seconds(3600)

    /// The settings in `source`; nil when pushes are not configured.
    public static func read(from source: ConfigurationSource) throws(ConfigurationError) -> APNsSettings? {
        var reader = source.settings()
        let pem: String?
        if let text = reader.optionalSecret("apns.key") {
            pem = text
        } else if let path = reader.optionalString("apns.keyFile") {
            pem = try? String(contentsOfFile: path, encoding: .utf8)
            if pem == nil { reader.report("apns.keyFile", "cannot read '\(path)'") }
        } else {
            pem = nil
        }
        let keyID = reader.optionalString("apns.keyId")
        let teamID = reader.optionalString("apns.teamId")
        let production = reader.string("apns.productionUrl", default: "https://api.push.apple.com")
        let sandbox = reader.string("apns.sandboxUrl", default: "https://api.sandbox.push.apple.com")
        let trustFile = reader.optionalString("apns.trustFile")
        let retryBase = reader.int("apns.retryBaseMilliseconds", default: 1000, in: 10...600_000)
        for (key, url) in [("apns.productionUrl", production), ("apns.sandboxUrl", sandbox)]
        where !url.hasPrefix("https://") {
            reader.report(key, "expected an https URL, got '\(url)'")
        }
        guard pem != nil || keyID != nil || teamID != nil else {
            try reader.finish()
            return nil
        }
        var key: ES256PrivateKey?
        if let pem {
            key = try? ES256PrivateKey(pem: pem)
            if key == nil { reader.report("apns.key", "is not a P-256 private key in PEM (the .p8 file)") }
        } else {
            reader.report("apns.key", "is required with apns.keyId and apns.teamId (or apns.keyFile)")
        }
        if keyID == nil { reader.report("apns.keyId", "is required with the key") }
        if teamID == nil { reader.report("apns.teamId", "is required with the key") }
        try reader.finish()
        guard let key, let keyID, let teamID else { return nil }
        return APNsSettings(
            key: key, keyID: keyID, teamID: teamID, productionURL: production, sandboxURL: sandbox,
            trustFile: trustFile, retryBase: .milliseconds(retryBase))
    }
}

extension APNsSettings {
    /// The bundle ids of the apps whose devices are taken (`push.bundleIds`,
    /// `ORDERLY_PUSH_BUNDLE_IDS`, comma-separated): `none` by default, when no device is taken.
    static func bundleIDs(from source: ConfigurationSource) throws(ConfigurationError) -> Set<String> {
        var reader = source.settings()
        let text = reader.string("push.bundleIds", default: "none")
        var ids: Set<String> = []
        for item in text == "none" ? [] : text.split(separator: ",") {
            let id = item.trimmingCharacters(in: .whitespaces)
            if DeviceDraft.isBundleID(id) {
                ids.insert(id)
            } else {
                reader.report("push.bundleIds", "expected apps' bundle ids (com.example.store), got '\(id)'")
            }
        }
        try reader.finish()
        return ids
    }
}
