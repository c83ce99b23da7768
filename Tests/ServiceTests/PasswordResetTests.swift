import Domain
import Foundation
import Logging
import Mail
import NIOSSL
import SQLKit
import Storage
import TestSupport
import Testing

@testable import Gateway
@testable import Runtime

/// A forgotten password reset by e-mail, and the mail outbox and sender it goes through.
@Suite("Password reset and mail")
struct PasswordResetTests {
    let api: API

    init() throws { api = try API() }

    /// Signs up a customer; returns their access and refresh tokens.
    func signUp(_ suite: any Suite, _ email: String, name: String = "Dana Levi", locale: String = "he-IL")
        async throws -> (access: String, refresh: String)
    {
        let reply = try await api.send(
            suite, "POST", "/v1/auth/register",
            json: ["email": email, "password": "password-123", "name": name, "locale": locale])
        try #require(reply.status == 201, "\(reply.text)")
        return (reply.object["access_token"] as! String, reply.object["refresh_token"] as! String)
    }

    /// The password-reset messages in the mail outbox, oldest first, with their status.
    static func outbox(_ database: Database) async throws -> [(status: String, attempts: Int64, mail: OutgoingMail?)] {
        try await database.read { sql in
            try await sql.raw(
                "SELECT status, attempts, doc FROM mail_outbox WHERE kind = 'password_reset' ORDER BY created_at, id"
            ).all().map {
                (
                    try $0.decode(column: "status", as: String.self), try $0.decode(column: "attempts", as: Int64.self),
                    try $0.decode(column: "doc", as: String?.self).map {
                        try StoredDocument.decode(OutgoingMail.self, from: $0)
                    }
                )
            }
        }
    }

    /// The token a reset message carries, from its link.
    static func token(in text: String) throws -> String {
        let range = try #require(text.range(of: #"reset-password/[A-Za-z0-9_-]+"#, options: .regularExpression))
        return String(text[range].dropFirst("reset-password/".count))
    }

    @Test("a reset mails a single-use link in the user's language; the new password ends every session")
    func reset() async throws {
        try await InProcessSuite.with { suite in
            let dana = try await signUp(suite, "dana@example.com")
            // Nothing tells an address with an account from one without.
            let unknown = try await api.send(
                suite, "POST", "/v1/auth/password-reset", json: ["email": "nobody@example.com"])
            #expect(unknown.status == 202 && unknown.body.isEmpty)
            #expect(try await Self.outbox(suite.gatewayDatabase).isEmpty)
            let known = try await api.send(
                suite, "POST", "/v1/auth/password-reset", json: ["email": " Dana@Example.com "])
            #expect(known.status == 202 && known.body.isEmpty)
            let queued = try await Self.outbox(suite.gatewayDatabase)
            let mail = try #require(queued.first?.mail)
            #expect(queued.count == 1 && queued[0].status == "queued")
            #expect(mail.kind == .passwordReset && mail.to == "dana@example.com" && mail.name == "Dana Levi")
            #expect(mail.subject == "בחירת סיסמה חדשה ל-Orderly")
            #expect(mail.link.hasPrefix("http://127.0.0.1:8080/console/#/reset-password/"))
            let token = try Self.token(in: mail.link)
            #expect(mail.text.hasPrefix("שלום Dana Levi,\n\nהתקבלה בקשה"), "\(mail.text)")
            #expect(mail.text.contains(mail.link) && mail.text.contains("\n\(token)\n"), "the token as text too")
            #expect(mail.html.contains(#"<html lang="he" dir="rtl">"#) && mail.html.contains("שלום Dana Levi,"))
            // Only its hash is stored.
            let stored = try await suite.gatewayDatabase.read {
                try await $0.raw("SELECT token_hash FROM password_resets").all().map {
                    try $0.decode(column: "token_hash", as: String.self)
                }
            }
            #expect(stored == [TokenIssuer.hash(token)])

            let malformed = try await api.send(suite, "POST", "/v1/auth/password-reset", json: ["email": "not-it"])
            #expect(malformed.status == 400 && (malformed.error["details"] as? [String: Any])?["email"] != nil)
            for (body, field) in [
                (["token": "made-up", "password": "a-new-password-7"], "token"),
                (["token": token, "password": "short"], "password"), (["password": "a-new-password-7"], "token"),
            ] {
                let refused = try await api.send(suite, "POST", "/v1/auth/password-reset/confirm", json: body)
                #expect(refused.status == 400, "\(refused.text)")
                #expect((refused.error["details"] as? [String: Any])?[field] != nil, "\(refused.text)")
            }
            let confirmed = try await api.send(
                suite, "POST", "/v1/auth/password-reset/confirm",
                json: ["token": token, "password": "a-new-password-7"])
            #expect(confirmed.status == 204, "\(confirmed.text)")
            // Every session ended; the new password signs in, the old one does not.
            let refreshed = try await api.send(
                suite, "POST", "/v1/auth/refresh", json: ["refresh_token": dana.refresh])
            #expect(refreshed.status == 401)
            #expect(
                try await waitUntil { try await api.send(suite, "GET", "/v1/me", token: dana.access).status == 401 })
            #expect(try await api.login(suite, "dana@example.com", "a-new-password-7")["access_token"] is String)
            let old = try await api.send(
                suite, "POST", "/v1/auth/login", json: ["email": "dana@example.com", "password": "password-123"])
            #expect(old.status == 401)
            // Used once.
            let again = try await api.send(
                suite, "POST", "/v1/auth/password-reset/confirm",
                json: ["token": token, "password": "yet-another-password-8"])
            #expect(again.status == 400 && (again.error["details"] as? [String: Any])?["token"] != nil)
        }
    }

    @Test("a token is good for 30 minutes, and using one voids the user's others")
    func expiry() async throws {
        try await InProcessSuite.with { suite in
            _ = try await signUp(suite, "dana@example.com", locale: "en")
            for _ in 0..<2 {
                #expect(
                    try await api.send(suite, "POST", "/v1/auth/password-reset", json: ["email": "dana@example.com"])
                        .status == 202)
            }
            let tokens = try await Self.outbox(suite.gatewayDatabase).map {
                try Self.token(in: try #require($0.mail).link)
            }
            #expect(tokens.count == 2)
            let expires = try await suite.gatewayDatabase.read {
                try await $0.raw("SELECT created_at, expires_at FROM password_resets").all().map {
                    try $0.decode(column: "expires_at", as: Int64.self)
                        - $0.decode(column: "created_at", as: Int64.self)
                }
            }
            #expect(expires.allSatisfy { (30 * 60_000 - 1000...30 * 60_000).contains($0) }, "\(expires)")
            try await suite.gatewayDatabase.transaction { transaction in
                try await transaction.sql.raw(
                    "UPDATE password_resets SET expires_at = \(bind: Date.nowMilliseconds - 1) WHERE token_hash = \(bind: TokenIssuer.hash(tokens[0]))"
                ).run()
            }
            func confirm(_ token: String) async throws -> Int {
                try await api.send(
                    suite, "POST", "/v1/auth/password-reset/confirm",
                    json: ["token": token, "password": "new-password-9"]
                ).status
            }
            #expect(try await confirm(tokens[0]) == 400)
            #expect(try await confirm(tokens[1]) == 204)
            #expect(try await confirm(tokens[1]) == 400)
        }
    }

    @Test("past an account's hourly allowance nothing more is mailed and the answer stays 202; past an address's, 429")
    func limits() async throws {
        try await InProcessSuite.with(
            settings: ["auth.passwordResetsPerAccountPerHour": "2", "auth.passwordResetsPerAddressPerHour": "4"]
        ) { suite in
            _ = try await signUp(suite, "dana@example.com")
            for _ in 0..<4 {
                #expect(
                    try await api.send(suite, "POST", "/v1/auth/password-reset", json: ["email": "dana@example.com"])
                        .status == 202)
            }
            #expect(try await Self.outbox(suite.gatewayDatabase).count == 2)
            let limited = try await api.send(
                suite, "POST", "/v1/auth/password-reset", json: ["email": "someone@example.com"])
            #expect(limited.status == 429 && limited.error["reason"] as? String == "rate_limited", "\(limited.text)")
        }
    }

    @Test(
        "the sender hands each message over once; a refusal is a dead letter, a failure is tried again later, its body kept until then",
        .enabled(if: SMTPTestServer.isAvailable, SMTPTestServer.unavailable))
    func sender() async throws {
        let server = try await SMTPTestServer.start(mode: "starttls")
        defer { Task { await server.stop() } }
        try await InProcessSuite.with { suite in
            for (email, name) in [
                ("dana@example.com", "Dana & \"Co\" <b>"), ("nobody@example.com", "No One"),
                ("busy@example.com", "Busy"),
            ] {
                _ = try await signUp(suite, email, name: name, locale: "ar")
                #expect(
                    try await api.send(suite, "POST", "/v1/auth/password-reset", json: ["email": email]).status == 202)
            }
            // Only the resets: the sign-ups' verification links are another test's.
            try await suite.gatewayDatabase.transaction {
                try await $0.sql.raw("DELETE FROM mail_outbox WHERE kind = 'email_verification'").run()
            }
            let settings = try InProcessSuite.gatewaySettings([
                "smtp.url": "smtp://mailer:s3cret%3Apass@localhost:\(server.port)", "smtp.caFile": server.authority,
                "mail.from": "Orderly <no-reply@orderly.test>", "public.url": "https://orderly.example/",
            ])
            #expect(settings.publicURL == "https://orderly.example")
            let outbox = MailOutbox(database: suite.gatewayDatabase)
            let sender = MailSender(
                outbox: outbox, transport: GatewayService.mailTransport(settings), doorbell: Doorbell(),
                logger: Logger(label: "tests"))
            #expect(await sender.sendDue() == 1)
            #expect(server.receivedCount == 1)
            let (message, envelope) = try server.received(1)
            #expect(envelope["rcpt_tos"] as? [String] == ["dana@example.com"])
            let html = try #require(SMTPTestServer.part("text/html", of: message))
            #expect(html.contains("مرحبًا Dana &amp; &quot;Co&quot; &lt;b&gt;،"), "the name escaped in HTML")
            let text = try #require(SMTPTestServer.part("text/plain", of: message))
            #expect(text.contains("مرحبًا Dana & \"Co\" <b>،"), "and as it is in plain text")
            #expect(text.contains("reset-password/"))

            let rows = try await Self.outbox(suite.gatewayDatabase)
            #expect(rows.map(\.status) == ["sent", "dead", "queued"])
            #expect(rows[0].mail == nil && rows[1].mail == nil, "a finished message keeps no body")
            #expect(rows[2].attempts == 1 && rows[2].mail != nil)
            let figures = try await outbox.figures()
            #expect(figures.queued == 1 && figures.dead == 1 && figures.oldestQueuedAt != nil)
            // Not due again before its backoff.
            #expect(await sender.sendDue() == 0)
            #expect(server.receivedCount == 1)
            let next = try await suite.gatewayDatabase.read {
                try await $0.raw("SELECT next_at FROM mail_outbox WHERE status = 'queued'").first()?
                    .decode(column: "next_at", as: Int64.self)
            }
            #expect(try #require(next) > Date.nowMilliseconds + 10_000)

            // Without an SMTP server, a message is written to the log and counts as sent.
            #expect(
                try await api.send(suite, "POST", "/v1/auth/password-reset", json: ["email": "dana@example.com"]).status
                    == 202)
            let logged = MailSender(
                outbox: outbox, transport: GatewayService.mailTransport(try InProcessSuite.gatewaySettings()),
                doorbell: Doorbell(), logger: Logger(label: "tests"))
            #expect(await logged.sendDue() == 1)
            #expect(try await outbox.figures().queued == 1)
        }
    }

    @Test("mail settings name what is wrong")
    func settings() throws {
        for (key, value, variable) in [
            ("public.url", "ftp://orderly.example", "ORDERLY_PUBLIC_URL"),
            ("public.url", "https://orderly.example/?x=1", "ORDERLY_PUBLIC_URL"),
            ("smtp.url", "http://mail.example.com", "ORDERLY_SMTP_URL"),
            ("mail.from", "not an address", "ORDERLY_MAIL_FROM"),
            ("smtp.caFile", "/no/such/file.pem", "ORDERLY_SMTP_CA_FILE"),
        ] {
            do {
                _ = try InProcessSuite.gatewaySettings([key: value])
                Issue.record("\(key)=\(value) was taken")
            } catch {
                #expect("\(error)".contains(variable), "\(error)")
            }
        }
        #expect(try InProcessSuite.gatewaySettings().smtp == nil)
    }

    @Test(
        "end to end over a real SMTP server: a customer signs up and verifies; the reset e-mail's link sets a new password and ends the old session; they export and leave; orderly pipeline shows the outbox",
        .enabled(if: SMTPTestServer.isAvailable, SMTPTestServer.unavailable))
    func endToEnd() async throws {
        let server = try await SMTPTestServer.start(mode: "starttls")
        defer { Task { await server.stop() } }
        try await RunningSuite.with(gatewayEnvironment: [
            "ORDERLY_SMTP_URL": "smtp://mailer:s3cret%3Apass@localhost:\(server.port)",
            "ORDERLY_SMTP_CA_FILE": server.authority, "ORDERLY_MAIL_FROM": "Orderly <no-reply@orderly.test>",
            "ORDERLY_PUBLIC_URL": "https://orderly.example",
        ]) { suite in
            let dana = try await signUp(suite, "dana@example.com", locale: "en")
            #expect(await waitUntil { server.receivedCount == 1 })
            let verification = try #require(SMTPTestServer.part("text/plain", of: try server.received(1).message))
            let link = try #require(
                verification.range(
                    of: #"https://orderly\.example/console/#/verify-email/[A-Za-z0-9_-]+"#,
                    options: .regularExpression), "\(verification)")
            let verified = try await api.send(
                suite, "POST", "/v1/auth/verify-email",
                json: ["token": try InProcessSuite.token(inLink: String(verification[link]))])
            #expect(verified.status == 204, "\(verified.text)")
            #expect(
                try await api.send(suite, "GET", "/v1/me", token: dana.access).object["email_verified"] as? Bool == true
            )

            #expect(
                try await api.send(suite, "POST", "/v1/auth/password-reset", json: ["email": "dana@example.com"]).status
                    == 202)
            #expect(await waitUntil { server.receivedCount == 2 })
            let (message, envelope) = try server.received(2)
            #expect(envelope["rcpt_tos"] as? [String] == ["dana@example.com"] && envelope["tls"] as? Bool == true)
            let text = try #require(SMTPTestServer.part("text/plain", of: message))
            let token = try Self.token(in: text)
            #expect(text.contains("https://orderly.example/console/#/reset-password/\(token)"), "\(text)")
            let confirmed = try await api.send(
                suite, "POST", "/v1/auth/password-reset/confirm",
                json: ["token": token, "password": "a-new-password-7"])
            #expect(confirmed.status == 204, "\(confirmed.text)")
            #expect(
                try await api.send(suite, "POST", "/v1/auth/refresh", json: ["refresh_token": dana.refresh]).status
                    == 401)
            #expect(
                try await waitUntil { try await api.send(suite, "GET", "/v1/me", token: dana.access).status == 401 })
            let signedIn = try await api.login(suite, "dana@example.com", "a-new-password-7")
            let access = try #require(signedIn["access_token"] as? String)

            // They take their data with them, then leave with the new password.
            let export = try await api.send(suite, "GET", "/v1/me/export", token: access)
            #expect(export.status == 200, "\(export.text)")
            #expect((export.object["user"] as? [String: Any])?["email_verified"] as? Bool == true)
            let left = try await api.send(
                suite, "DELETE", "/v1/me", token: access, json: ["password": "a-new-password-7"])
            #expect(left.status == 204, "\(left.text)")
            #expect(try await waitUntil { try await api.send(suite, "GET", "/v1/me", token: access).status == 401 })
            let again = try await api.send(
                suite, "POST", "/v1/auth/login", json: ["email": "dana@example.com", "password": "a-new-password-7"])
            #expect(again.status == 401)

            let pipeline = try await Self.run([
                "\(RunningSuite.binaryDirectory)/orderly", "pipeline", "--redis-url",
                "redis://127.0.0.1:\(suite.redis.port)", "--gateway-admin-url",
                "http://127.0.0.1:\(try #require(suite.adminPorts["gateway"]))",
            ])
            let mail = pipeline.split(separator: "\n").last { $0.hasPrefix("mail ") }
            #expect(mail?.split(separator: " ").map(String.init) == ["mail", "0", "0", "s", "0"], "\(pipeline)")
        }
    }

    /// What running `arguments` printed, once it ended.
    static func run(_ arguments: [String]) async throws -> String {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("orderly-cli-\(UUID()).txt")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: output) }
        let handle = try FileHandle(forWritingTo: output)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: arguments[0])
        process.arguments = Array(arguments.dropFirst())
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        _ = await waitUntil { !process.isRunning }
        try handle.close()
        return try String(contentsOf: output, encoding: .utf8)
    }
}
