import Foundation
import Mail
import NIOSSL
import TestSupport
import Testing

extension SMTPTestServer {
    /// A client of this server trusting its authority, as `url` and `from` configure it.
    func client(_ url: String, from: String = "Orderly <no-reply@orderly.test>") throws -> SMTPClient {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.trustRoots = .file(authority)
        return SMTPClient(settings: try SMTPSettings(url: url, from: from), tls: tls, timeout: .seconds(10))
    }
}

/// The SMTP client against a real SMTP server (`deploy/local/smtp-test-server.py`, aiosmtpd;
/// `make test` installs it): STARTTLS and implicit TLS, AUTH, refusals, and what arrives.
@Suite("SMTP", .enabled(if: SMTPTestServer.isAvailable, SMTPTestServer.unavailable))
struct SMTPClientTests {
    typealias Server = SMTPTestServer

    static let dana = MailAddress(name: "דנה לוי", address: "dana@example.com")!

    @Test("a message goes by STARTTLS and AUTH, and arrives with its Hebrew subject, text and HTML intact")
    func startTLS() async throws {
        let server = try await Server.start(mode: "starttls")
        defer { Task { await server.stop() } }
        let client = try server.client("smtp://mailer:s3cret%3Apass@localhost:\(server.port)")
        let message = MailMessage(
            to: Self.dana, subject: "איפוס הסיסמה שלך ל-Orderly",
            text: "שלום דנה,\n.\nהקוד שלך: 123456", html: "<p>שלום דנה</p>")
        let answer = try await client.send(message)
        #expect(answer.contains("queued as 1"))
        let (received, envelope) = try server.received(1)
        #expect(envelope["mail_from"] as? String == "no-reply@orderly.test")
        #expect(envelope["rcpt_tos"] as? [String] == ["dana@example.com"])
        #expect(envelope["tls"] as? Bool == true)
        #expect(received.contains("From: \"Orderly\" <no-reply@orderly.test>\r\n"))
        #expect(received.contains("=?UTF-8?B?"))
        #expect(SMTPTestServer.part("text/plain", of: received) == "שלום דנה,\n.\nהקוד שלך: 123456")
        #expect(SMTPTestServer.part("text/html", of: received) == "<p>שלום דנה</p>")
        let subject = received.components(separatedBy: "\r\n").drop { !$0.hasPrefix("Subject:") }
            .prefix { $0.hasPrefix("Subject:") || $0.hasPrefix(" ") }
            .map { $0.replacingOccurrences(of: "Subject:", with: "").trimmingCharacters(in: .whitespaces) }
            .map { $0.dropFirst("=?UTF-8?B?".count).dropLast(2) }
            .compactMap { Data(base64Encoded: String($0)) }
            .reduce(Data(), +)
        #expect(String(decoding: subject, as: UTF8.self) == "איפוס הסיסמה שלך ל-Orderly")
    }

    @Test("smtps speaks TLS from the first byte")
    func implicitTLS() async throws {
        let server = try await Server.start(mode: "implicit")
        defer { Task { await server.stop() } }
        let client = try server.client("smtps://mailer:s3cret%3Apass@localhost:\(server.port)")
        try await client.send(MailMessage(to: Self.dana, subject: "Welcome", text: "Hello", html: "<p>Hello</p>"))
        #expect(try server.received(1).envelope["tls"] as? Bool == true)
    }

    @Test("a server without STARTTLS gets nothing in the clear; a wrong password and a refused recipient are refusals")
    func refusals() async throws {
        let plain = try await Server.start(mode: "plain")
        defer { Task { await plain.stop() } }
        let message = MailMessage(to: Self.dana, subject: "Welcome", text: "Hello", html: "<p>Hello</p>")
        await #expect(throws: SMTPError.unusable("the server offers no STARTTLS, and mail is not sent in the clear")) {
            try await plain.client("smtp://mailer:s3cret%3Apass@localhost:\(plain.port)").send(message)
        }

        let server = try await Server.start(mode: "starttls")
        defer { Task { await server.stop() } }
        let wrong = try server.client("smtp://mailer:wrong@localhost:\(server.port)")
        do {
            try await wrong.send(message)
            Issue.record("a wrong password was taken")
        } catch {
            guard case .refused(let command, let code, _) = error else {
                Issue.record("not a refusal: \(error)")
                return
            }
            #expect(command == "AUTH PLAIN" && code == 535 && error.isPermanent)
            #expect(!"\(error)".contains("wrong"), "the password is never shown: \(error)")
        }
        let anonymous = try server.client("smtp://localhost:\(server.port)")
        do {
            try await anonymous.send(message)
            Issue.record("mail without AUTH was taken")
        } catch {
            #expect(error.isPermanent, "\(error)")
        }
        let client = try server.client("smtp://mailer:s3cret%3Apass@localhost:\(server.port)")
        var nobody = message
        nobody.to = MailAddress("nobody@example.com")!
        do {
            try await client.send(nobody)
            Issue.record("a refused recipient was taken")
        } catch {
            #expect(error == .refused(command: "RCPT TO", code: 550, message: "5.1.1 no such mailbox"))
            #expect(error.isPermanent)
        }
        var busy = message
        busy.to = MailAddress("busy@example.com")!
        await #expect(throws: SMTPError.self) { try await client.send(busy) }
        do { try await client.send(busy) } catch { #expect(!error.isPermanent) }
        await #expect(throws: SMTPError.self) {
            try await server.client("smtp://localhost:\(ChildProcess.freePort())").send(message)
        }
    }

    @Test("settings name what is wrong; a password is never shown")
    func settings() throws {
        let settings = try SMTPSettings(url: "smtp://mailer:p%40ss@mail.example.com", from: "no-reply@example.com")
        #expect(settings.port == 587 && !settings.implicitTLS && settings.password == "p@ss")
        #expect("\(settings)" == "smtp://mailer:***@mail.example.com:587 from no-reply@example.com")
        #expect(try SMTPSettings(url: "smtps://mail.example.com", from: "a@b").port == 465)
        for (url, from, setting) in [
            ("http://mail.example.com", "a@b", "ORDERLY_SMTP_URL"), ("smtp://", "a@b", "ORDERLY_SMTP_URL"),
            ("smtp://mail.example.com/x", "a@b", "ORDERLY_SMTP_URL"),
            ("smtp://mail.example.com", "no address", "ORDERLY_MAIL_FROM"),
            ("smtp://mail.example.com", "Evil <a@b>\r\nBcc: c@d", "ORDERLY_MAIL_FROM"),
        ] {
            #expect(throws: SMTPSettingsError.self) { try SMTPSettings(url: url, from: from) }
            do { _ = try SMTPSettings(url: url, from: from) } catch { #expect(error.setting == setting, "\(url)") }
        }
        #expect(MailAddress("a@b\r\nRCPT TO:<c@d>") == nil)
    }
}
