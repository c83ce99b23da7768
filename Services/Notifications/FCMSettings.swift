import Foundation
public import JWTKit
public import Runtime

/// The notifications service's Firebase Cloud Messaging settings (HTTP v1 API): Android apps
/// pushed to through Google's service, authorised by a service account whose signed assertion
/// is exchanged for an access token (OAuth 2.0, RFC 7523). Off unless the account is set.
///
/// | key | variable | default |
/// |---|---|---|
/// | `push.fcm.serviceAccount` | `ORDERLY_PUSH_FCM_SERVICE_ACCOUNT` (environment only) | none: the service account's JSON key |
/// | `push.fcm.serviceAccountFile` | `ORDERLY_PUSH_FCM_SERVICE_ACCOUNT_FILE` | none: or the path of its file |
/// | `push.fcm.url` | `ORDERLY_PUSH_FCM_URL` | `https://fcm.googleapis.com` |
/// | `push.fcm.trustFile` | `ORDERLY_PUSH_FCM_TRUST_FILE` | none: the system's authorities only |
/// | `push.fcm.retryBaseMilliseconds` | `ORDERLY_PUSH_FCM_RETRY_BASE_MILLISECONDS` | 1000: the first retry's wait, doubled each time |
public struct FCMSettings: Sendable {
    /// What the service account's key file holds that sending needs.
    public struct ServiceAccount: Decodable, Sendable {
        public var projectID: String
        public var clientEmail: String
        public var privateKeyID: String?
        public var privateKey: String
        /// Where the assertion is exchanged for an access token.
        public var tokenURI: String

        enum CodingKeys: String, CodingKey {
            case projectID = "project_id"
            case clientEmail = "client_email"
            case privateKeyID = "private_key_id"
            case privateKey = "private_key"
            case tokenURI = "token_uri"
        }
    }

    public var account: ServiceAccount
    public var key: Insecure.RSA.PrivateKey
    public var url: String
    /// A PEM file of authorities trusted besides the system's (a test server's).
    public var trustFile: String?
    public var retryBase: Duration
    /// Attempts of one push before it is given up (the inbox still has it).
    public var attempts = 5
    /// How long one attempt may take, connection included.
    public var timeout: Duration = .seconds(10)
    /// How long Google keeps a push for a phone that is off.
    public var expiry: Duration = .seconds(3600)

    /// The settings in `source`; nil when FCM is not configured.
    public static func read(from source: ConfigurationSource) throws(ConfigurationError) -> FCMSettings? {
        var reader = source.settings()
        let json: String?
        if let text = reader.optionalSecret("push.fcm.serviceAccount") {
            json = text
        } else if let path = reader.optionalString("push.fcm.serviceAccountFile") {
            json = try? String(contentsOfFile: path, encoding: .utf8)
            if json == nil { reader.report("push.fcm.serviceAccountFile", "cannot read '\(path)'") }
        } else {
            json = nil
        }
        let url = reader.string("push.fcm.url", default: "https://fcm.googleapis.com")
        let trustFile = reader.optionalString("push.fcm.trustFile")
        let retryBase = reader.int("push.fcm.retryBaseMilliseconds", default: 1000, in: 10...600_000)
        if !url.hasPrefix("https://") { reader.report("push.fcm.url", "expected an https URL, got '\(url)'") }
        guard let json else {
            try reader.finish()
            return nil
        }
        // The key file's contents are never echoed: a problem names the field, not its value.
        let account = try? JSONDecoder().decode(ServiceAccount.self, from: Data(json.utf8))
        let key = account.flatMap { try? Insecure.RSA.PrivateKey(pem: $0.privateKey) }
        if account == nil {
            reader.report(
                "push.fcm.serviceAccount",
                "is not a service account's JSON key (project_id, client_email, private_key, token_uri)")
        } else if key == nil {
            reader.report("push.fcm.serviceAccount", "has a private_key that is not an RSA key in PEM")
        } else if let account, !account.tokenURI.hasPrefix("https://") {
            reader.report("push.fcm.serviceAccount", "has a token_uri that is not an https URL")
        }
        try reader.finish()
        guard let account, let key else { return nil }
        return FCMSettings(
            account: account, key: key, url: url, trustFile: trustFile, retryBase: .milliseconds(retryBase))
    }
}
