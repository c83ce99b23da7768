import Domain
import Foundation
public import Mail
public import Runtime

/// The gateway's own settings, besides those of every service.
///
/// | key | variable | default |
/// |---|---|---|
/// | `http.host`, `http.port` | `ORDERLY_HTTP_HOST`, `ORDERLY_HTTP_PORT` | `127.0.0.1`, `8080` |
/// | `http.maxBodyBytes` | `ORDERLY_HTTP_MAX_BODY_BYTES` | 1048576 |
/// | `http.maxConnections` | `ORDERLY_HTTP_MAX_CONNECTIONS` | 10000 |
/// | `http.idleTimeoutSeconds` | `ORDERLY_HTTP_IDLE_TIMEOUT_SECONDS` | 75 |
/// | `http.userRequestsPerSecond`, `http.userBurst` | `ORDERLY_HTTP_USER_REQUESTS_PER_SECOND`, `ORDERLY_HTTP_USER_BURST` | 20, 100 (0: no per-user limit) |
/// | `http.anonymousRequestsPerSecond`, `http.anonymousBurst` | `ORDERLY_HTTP_ANONYMOUS_REQUESTS_PER_SECOND`, `ORDERLY_HTTP_ANONYMOUS_BURST` | 10, 50 per client address, for requests without a valid token (0: no limit) |
/// | `jwt.secret` | `ORDERLY_JWT_SECRET` (environment only) | none: required, 32+ bytes |
/// | `auth.accessTokenSeconds` | `ORDERLY_AUTH_ACCESS_TOKEN_SECONDS` | 900 |
/// | `auth.refreshTokenDays` | `ORDERLY_AUTH_REFRESH_TOKEN_DAYS` | 30 |
/// | `auth.bcryptCost` | `ORDERLY_AUTH_BCRYPT_COST` | 12 |
/// | `auth.loginAttemptsPerAccount` | `ORDERLY_AUTH_LOGIN_ATTEMPTS_PER_ACCOUNT` | 10 per 5 minutes |
/// | `auth.loginAttemptsPerAddress` | `ORDERLY_AUTH_LOGIN_ATTEMPTS_PER_ADDRESS` | 50 per 5 minutes |
/// | `auth.passwordChangesPerHour` | `ORDERLY_AUTH_PASSWORD_CHANGES_PER_HOUR` | 5 per user |
/// | `auth.signUpsPerAddressPerHour` | `ORDERLY_AUTH_SIGN_UPS_PER_ADDRESS_PER_HOUR` | 20 per client address |
/// | `auth.passwordResetsPerAccountPerHour` | `ORDERLY_AUTH_PASSWORD_RESETS_PER_ACCOUNT_PER_HOUR` | 3 e-mails per account |
/// | `auth.passwordResetsPerAddressPerHour` | `ORDERLY_AUTH_PASSWORD_RESETS_PER_ADDRESS_PER_HOUR` | 20 requests per client address |
/// | `auth.verificationMailsPerAccountPerHour` | `ORDERLY_AUTH_VERIFICATION_MAILS_PER_ACCOUNT_PER_HOUR` | 3 e-mails per account or application |
/// | `public.url` | `ORDERLY_PUBLIC_URL` | `http://<http.host>:<http.port>`: where links in e-mails lead |
/// | `smtp.url` | `ORDERLY_SMTP_URL` (with a password: environment only) | none: each message is logged with its link |
/// | `smtp.caFile` | `ORDERLY_SMTP_CA_FILE` | none: the system's trusted certificates |
/// | `mail.from` | `ORDERLY_MAIL_FROM` | `Orderly <no-reply@orderly.local>` |
/// | `http.trustedProxies` | `ORDERLY_HTTP_TRUSTED_PROXIES` | none (`10.0.0.0/8,fd00::/8`: believe their `X-Forwarded-For`) |
/// | `bootstrap.admin.email` | `ORDERLY_BOOTSTRAP_ADMIN_EMAIL` | `admin@orderly.local` |
/// | `bootstrap.admin.password` | `ORDERLY_BOOTSTRAP_ADMIN_PASSWORD` (environment only) | generated and shown once on a terminal; elsewhere none, and no admin until it is set |
/// | `notifications.recheckSeconds` | `ORDERLY_NOTIFICATIONS_RECHECK_SECONDS` | 2 |
/// | `notifications.heartbeatSeconds` | `ORDERLY_NOTIFICATIONS_HEARTBEAT_SECONDS` | 15 |
/// | `notifications.maxWaitSeconds` | `ORDERLY_NOTIFICATIONS_MAX_WAIT_SECONDS` | 30 |
public struct GatewaySettings: Sendable {
    public var service: ServiceSettings
    public var httpHost: String
    public var httpPort: Int
    public var maximumBodyBytes: Int
    public var maximumConnections: Int
    /// How long a connection may sit without a request before it is closed (more than the
    /// longest long-poll).
    public var idleTimeout: Duration
    /// Requests a second each signed-in user may make through one gateway replica once the
    /// burst is spent; 0 turns the limit off.
    public var userRequestsPerSecond: Int
    public var userBurst: Int
    public var anonymousRequestsPerSecond: Int
    public var anonymousBurst: Int
    public var jwtSecret: String
    public var accessTokenLifetime: Duration
    public var refreshTokenLifetime: Duration
    /// The longest a session opened by PIN on a shared till lasts, however often refreshed.
    public var tillSessionLifetime: Duration
    public var bcryptCost: Int
    public var loginAttemptsPerAccount: Int
    public var loginAttemptsPerAddress: Int
    /// Password changes of one user an hour, whoever makes them: each costs a bcrypt hash.
    public var passwordChangesPerHour: Int
    /// Customers' sign-ups from one client address an hour: each is an account and a bcrypt hash.
    public var signUpsPerAddressPerHour: Int
    public var passwordResetsPerAccountPerHour: Int
    public var passwordResetsPerAddressPerHour: Int
    /// Verification links mailed again to one account or application an hour.
    public var verificationMailsPerAccountPerHour: Int
    /// Where the links in e-mails lead (scheme, host and port, no trailing slash).
    public var publicURL: String
    /// The SMTP server mail is handed to; nil: each message is written to the log instead.
    public var smtp: SMTPSettings?
    /// A PEM file of the certificates trusted for the SMTP server instead of the system's.
    public var smtpTrustRoots: String?
    /// Proxies whose `X-Forwarded-For` is believed (addresses or networks); none by default.
    var trustedProxies: [IPNetwork]
    public var bootstrapAdminEmail: String
    public var bootstrapAdminPassword: String?
    public var longPollRecheck: Duration
    /// The longest a long-poll is held, whatever its `wait` asks (up to 30 seconds): lower it
    /// behind a proxy that cuts requests sooner.
    public var longPollMaximumWait: Duration
    /// How long an event stream stays silent before a comment shows it is alive.
    public var streamHeartbeat: Duration

    /// Reads the gateway's settings on top of `service`'s.
    public static func read(service: ServiceSettings, from source: ConfigurationSource) throws(ConfigurationError)
        -> GatewaySettings
    {
        var reader = source.settings()
        let host = reader.string("http.host", default: "127.0.0.1")
        let port = reader.int("http.port", default: 8080, in: 0...65535)
        let body = reader.int("http.maxBodyBytes", default: 1 << 20, in: 1024...(64 << 20))
        let connections = reader.int("http.maxConnections", default: 10_000, in: 1...1_000_000)
        let idle = reader.int("http.idleTimeoutSeconds", default: 75, in: 31...3600)
        let userRate = reader.int("http.userRequestsPerSecond", default: 20, in: 0...1_000_000)
        let userBurst = reader.int("http.userBurst", default: 100, in: 1...1_000_000)
        let anonymousRate = reader.int("http.anonymousRequestsPerSecond", default: 10, in: 0...1_000_000)
        let anonymousBurst = reader.int("http.anonymousBurst", default: 50, in: 1...1_000_000)
        let secret = reader.secret("jwt.secret")
        if let secret, secret.utf8.count < 32 { reader.report("jwt.secret", "must be at least 32 bytes long") }
        let access = reader.int("auth.accessTokenSeconds", default: 900, in: 30...86_400)
        let refresh = reader.int("auth.refreshTokenDays", default: 30, in: 1...365)
        let tillSession = reader.int("auth.tillSessionHours", default: 12, in: 1...24)
        let cost = reader.int("auth.bcryptCost", default: 12, in: 4...16)
        let perAccount = reader.int("auth.loginAttemptsPerAccount", default: 10, in: 1...10_000)
        let perAddress = reader.int("auth.loginAttemptsPerAddress", default: 50, in: 1...100_000)
        let passwordChanges = reader.int("auth.passwordChangesPerHour", default: 5, in: 1...1000)
        let signUps = reader.int("auth.signUpsPerAddressPerHour", default: 20, in: 1...1_000_000)
        let resetsPerAccount = reader.int("auth.passwordResetsPerAccountPerHour", default: 3, in: 1...1000)
        let resetsPerAddress = reader.int("auth.passwordResetsPerAddressPerHour", default: 20, in: 1...1_000_000)
        let verificationMails = reader.int("auth.verificationMailsPerAccountPerHour", default: 3, in: 1...1000)
        let publicURL = reader.string("public.url", default: "http://\(host):\(port)")
        if let problem = Self.problem(ofPublicURL: publicURL) { reader.report("public.url", problem) }
        let smtpURL = reader.urlWithCredentials("smtp.url", default: "none")
        let from = reader.string("mail.from", default: "Orderly <no-reply@orderly.local>")
        var smtp: SMTPSettings?
        do {
            smtp = smtpURL == "none" ? nil : try SMTPSettings(url: smtpURL, from: from)
            if smtp == nil, MailAddress(from) == nil {
                reader.report("mail.from", "must be an address, alone or as Name <address>")
            }
        } catch {
            reader.report(error.setting == "ORDERLY_MAIL_FROM" ? "mail.from" : "smtp.url", error.reason)
        }
        let trustRoots = reader.optionalString("smtp.caFile")
        if let trustRoots, !FileManager.default.isReadableFile(atPath: trustRoots) {
            reader.report("smtp.caFile", "names no readable file")
        }
        let proxiesText = reader.string("http.trustedProxies", default: "none")
        var proxies: [IPNetwork] = []
        if proxiesText != "none" {
            for item in proxiesText.split(separator: ",") {
                if let network = IPNetwork(item.trimmingCharacters(in: .whitespaces)) {
                    proxies.append(network)
                } else {
                    reader.report(
                        "http.trustedProxies", "expected addresses or networks (10.0.0.0/8, fd00::/8), got '\(item)'")
                }
            }
        }
        let email = User.normalizedEmail(reader.string("bootstrap.admin.email", default: "admin@orderly.local"))
        let password = reader.optionalSecret("bootstrap.admin.password")
        if let password, let problem = User.passwordProblem(password) {
            reader.report("bootstrap.admin.password", problem)
        }
        let recheck = reader.int("notifications.recheckSeconds", default: 2, in: 1...30)
        let heartbeat = reader.int("notifications.heartbeatSeconds", default: 15, in: 1...30)
        let maximumWait = reader.int("notifications.maxWaitSeconds", default: 30, in: 1...30)
        guard let secret, reader.isClean else { throw reader.failure }
        return GatewaySettings(
            service: service, httpHost: host, httpPort: port, maximumBodyBytes: body, maximumConnections: connections,
            idleTimeout: .seconds(idle), userRequestsPerSecond: userRate, userBurst: userBurst,
            anonymousRequestsPerSecond: anonymousRate, anonymousBurst: anonymousBurst, jwtSecret: secret,
            accessTokenLifetime: .seconds(access), refreshTokenLifetime: .seconds(refresh * 86_400),
            tillSessionLifetime: .seconds(tillSession * 3600), bcryptCost: cost, loginAttemptsPerAccount: perAccount,
            loginAttemptsPerAddress: perAddress,
            passwordChangesPerHour: passwordChanges, signUpsPerAddressPerHour: signUps,
            passwordResetsPerAccountPerHour: resetsPerAccount, passwordResetsPerAddressPerHour: resetsPerAddress,
            verificationMailsPerAccountPerHour: verificationMails,
            publicURL: publicURL.hasSuffix("/") ? String(publicURL.dropLast()) : publicURL, smtp: smtp,
            smtpTrustRoots: trustRoots, trustedProxies: proxies,
            bootstrapAdminEmail: email, bootstrapAdminPassword: password, longPollRecheck: .seconds(recheck),
            longPollMaximumWait: .seconds(maximumWait), streamHeartbeat: .seconds(heartbeat))
    }

    /// Why `url` cannot be where e-mailed links lead, or nil: it must be http or https with a
    /// host, and no query or fragment.
    static func problem(ofPublicURL url: String) -> String? {
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(),
            scheme == "http" || scheme == "https"
        else { return "must be an http:// or https:// URL" }
        guard components.host?.isEmpty == false else { return "names no host" }
        guard components.query == nil, components.fragment == nil else { return "must hold no query or fragment" }
        return nil
    }
}
