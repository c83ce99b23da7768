public import Domain
import Foundation
import WireContract

/// A device to register, with the `locale` to write in (the user's when absent): an iPhone's
/// app (`platform: ios`) with its push `token` (hex), its `bundle_id` and push `environment`
/// (`sandbox` or `production`); or a browser (`platform: web`) with its push subscription's
/// `endpoint` and `keys`, as `PushSubscription.toJSON()` gives them.
public struct DeviceDraft: Codable, Sendable, Hashable {
    public var platform: String?
    public var token: String?
    public var bundleID: String?
    public var environment: String?
    public var endpoint: String?
    public var keys: WebPushKeys?
    public var locale: String?

    public init(
        platform: String?, token: String? = nil, bundleID: String? = nil, environment: String? = nil,
        endpoint: String? = nil, keys: WebPushKeys? = nil, locale: String? = nil
    ) {
        self.platform = platform
        self.token = token
        self.bundleID = bundleID
        self.environment = environment
        self.endpoint = endpoint
        self.keys = keys
        self.locale = locale
    }

    enum CodingKeys: String, CodingKey {
        case platform, token, environment, endpoint, keys, locale
        case bundleID = "bundle_id"
    }

    /// The checked request, every bad field named at once: a platform of
    /// `DevicesAPI.platforms`, and a locale (BCP 47) when one is given. An app's device names
    /// its push token and a bundle id (`isBundleID`) of one of `bundleIDs`, the deployment's
    /// apps (`push.bundleIds`): an iPhone's (`ios`) token in hex (`isToken`, answered
    /// lower-cased) with an environment of `DevicesAPI.environments`; an Android phone's
    /// (`android`) an FCM registration token (`isRegistrationToken`). A browser (`web`) names an
    /// `https` endpoint (at most 2,048 characters) and its subscription's `keys`: `p256dh`, an
    /// uncompressed P-256 point, and `auth`, 16 bytes, each base64url. `android` and `web` are
    /// taken where the deployment pushes to them (`pushedTo`). Each platform's fields are refused
    /// on the others'.
    public func validated(bundleIDs: Set<String>, pushedTo: Set<String>) throws(OrderlyError) -> ValidDeviceDraft {
        var problems = FieldProblems()
        let platform = problems.required(platform, "platform")
        if let platform, !DevicesAPI.platforms.contains(platform) {
            problems.add("platform", "must be one of " + DevicesAPI.platforms.joined(separator: ", "))
        }
        if let platform, platform != "ios", DevicesAPI.platforms.contains(platform), !pushedTo.contains(platform) {
            problems.add("platform", "\(platform) is not pushed to by this deployment")
        }
        if let locale { problems.locale(locale) }
        if platform == "web" {
            for (field, value) in [("token", token), ("bundle_id", bundleID), ("environment", environment)]
            where value != nil {
                problems.add(field, "is for apps' devices; a browser gives endpoint and keys")
            }
            let endpoint = problems.required(endpoint, "endpoint")
            if let endpoint, !Self.isEndpoint(endpoint) {
                problems.add("endpoint", "must be an https URL with a host, at most 2048 characters")
            }
            let p256dh = problems.required(keys?.p256dh, "keys.p256dh")
            if let p256dh, Base64URL.decoded(p256dh).map({ $0.count != 65 || $0.first != 4 }) ?? true {
                problems.add("keys.p256dh", "must be an uncompressed P-256 public key (65 bytes), base64url")
            }
            let auth = problems.required(keys?.auth, "keys.auth")
            if let auth, Base64URL.decoded(auth)?.count != 16 {
                problems.add("keys.auth", "must be 16 bytes, base64url")
            }
            guard let platform, let endpoint, let p256dh, let auth, problems.isEmpty else { throw problems.failure }
            return ValidDeviceDraft(
                platform: platform, token: endpoint, bundleID: nil, environment: nil,
                webPush: WebPushKeys(p256dh: p256dh, auth: auth), locale: locale)
        }
        for (field, value) in [("endpoint", endpoint), ("keys", keys.map { _ in "" })] where value != nil {
            problems.add(field, "is for web devices; an app gives token and bundle_id")
        }
        let android = platform == "android"
        let token = problems.required(token, "token")
        if let token, android, !Self.isRegistrationToken(token) {
            problems.add("token", "must be an FCM registration token: 1 to 4096 letters, digits, ':', '_' or '-'")
        } else if let token, !android, !Self.isToken(token) {
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
        if android {
            if environment != nil { problems.add("environment", "is for ios devices") }
            guard let platform, let token, let bundle, problems.isEmpty else { throw problems.failure }
            return ValidDeviceDraft(
                platform: platform, token: token, bundleID: bundle, environment: nil, webPush: nil, locale: locale)
        }
        let environment = problems.required(environment, "environment")
        if let environment, !DevicesAPI.environments.contains(environment) {
            problems.add("environment", "must be one of " + DevicesAPI.environments.joined(separator: ", "))
        }
        guard let platform, let token, let bundle, let environment, problems.isEmpty else { throw problems.failure }
        return ValidDeviceDraft(
            platform: platform, token: token.lowercased(), bundleID: bundle, environment: environment, webPush: nil,
            locale: locale)
    }

    /// An FCM registration token as Android apps get them: 1 to 4,096 characters of letters,
    /// digits, `:`, `_` and `-`.
    public static func isRegistrationToken(_ text: String) -> Bool {
        (1...4096).contains(text.utf8.count)
            && text.unicodeScalars.allSatisfy {
                ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == ":"
                    || $0 == "_" || $0 == "-"
            }
    }

    /// A push subscription's endpoint: an `https` URL with a host, as push services give them.
    public static func isEndpoint(_ text: String) -> Bool {
        guard text.utf8.count <= 2048, let url = URLComponents(string: text), url.scheme?.lowercased() == "https",
            let host = url.host, !host.isEmpty, url.user == nil, url.password == nil
        else { return false }
        return true
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

/// A device registration as `DeviceDraft.validated(bundleIDs:pushedTo:)` checked it: every
/// field of its platform present and well formed; an iPhone's token lower-cased, a browser's
/// endpoint as its token.
public struct ValidDeviceDraft: Sendable, Hashable {
    public var platform: String
    public var token: String
    public var bundleID: String?
    public var environment: String?
    public var webPush: WebPushKeys?
    public var locale: String?
}

/// A browser's push subscription keys, base64url as `PushSubscription.toJSON()` gives them:
/// its P-256 public key and its authentication secret.
public struct WebPushKeys: Codable, Sendable, Hashable {
    public var p256dh: String?
    public var auth: String?

    public init(p256dh: String?, auth: String?) {
        self.p256dh = p256dh
        self.auth = auth
    }
}
