import Foundation

/// Where and how mail is handed over: `ORDERLY_SMTP_URL` (`smtp://[user:password@]host[:port]`,
/// STARTTLS on port 587 by default; `smtps://` for TLS from the first byte, port 465) and
/// `ORDERLY_MAIL_FROM` (`Orderly <no-reply@example.com>` or a bare address). The user and
/// password are percent-decoded; a password is never shown (`description` hides it).
public struct SMTPSettings: Sendable, Hashable, CustomStringConvertible {
    public var host: String
    public var port: Int
    /// TLS from the start (`smtps`), or upgraded by STARTTLS (`smtp`), which is then required.
    public var implicitTLS: Bool
    public var user: String?
    public var password: String?
    public var from: MailAddress

    public init(
        host: String, port: Int, implicitTLS: Bool, user: String? = nil, password: String? = nil,
        from: MailAddress
    ) {
        self.host = host
        self.port = port
        self.implicitTLS = implicitTLS
        self.user = user
        self.password = password
        self.from = from
    }

    /// The settings of `url` and `from`, or an error naming which is wrong and why.
    public init(url: String, from: String) throws(SMTPSettingsError) {
        guard let components = URLComponents(string: url.trimmingCharacters(in: .whitespaces)),
            let scheme = components.scheme?.lowercased()
        else { throw SMTPSettingsError(setting: "ORDERLY_SMTP_URL", reason: "must be smtp://host[:port] or smtps://…") }
        guard scheme == "smtp" || scheme == "smtps" else {
            throw SMTPSettingsError(setting: "ORDERLY_SMTP_URL", reason: "must start with smtp:// or smtps://")
        }
        guard let host = components.host, !host.isEmpty else {
            throw SMTPSettingsError(setting: "ORDERLY_SMTP_URL", reason: "names no host")
        }
        guard components.path.isEmpty || components.path == "/", components.query == nil, components.fragment == nil
        else {
            throw SMTPSettingsError(setting: "ORDERLY_SMTP_URL", reason: "must hold no path, query or fragment")
        }
        let port = components.port ?? (scheme == "smtps" ? 465 : 587)
        guard (1...65_535).contains(port) else {
            throw SMTPSettingsError(setting: "ORDERLY_SMTP_URL", reason: "has a port outside 1-65535")
        }
        let user = components.user.flatMap { $0.isEmpty ? nil : $0 }
        if components.password != nil, user == nil {
            throw SMTPSettingsError(setting: "ORDERLY_SMTP_URL", reason: "gives a password without a user")
        }
        guard let sender = MailAddress(from) else {
            throw SMTPSettingsError(
                setting: "ORDERLY_MAIL_FROM", reason: "must be an address, alone or as Name <address>")
        }
        self.init(
            host: host, port: port, implicitTLS: scheme == "smtps", user: user,
            password: user == nil ? nil : (components.password ?? ""), from: sender)
    }

    public var description: String {
        let credentials = user.map { "\($0):***@" } ?? ""
        return "\(implicitTLS ? "smtps" : "smtp")://\(credentials)\(host):\(port) from \(from)"
    }
}

/// A setting of the mail sender that cannot be used, and why.
public struct SMTPSettingsError: Error, Sendable, Hashable, CustomStringConvertible {
    public var setting: String
    public var reason: String

    public var description: String { "\(setting) \(reason)" }
}
