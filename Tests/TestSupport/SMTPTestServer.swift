public import Foundation
public import Testing

/// A real SMTP server for one test (`deploy/local/smtp-test-server.py`, aiosmtpd; `make test`
/// installs it) on a free port, with a certificate from a new authority, writing each message it
/// accepts as `<n>.eml` with its envelope beside it as `<n>.json`. `mode` is `starttls`,
/// `implicit` (TLS from the first byte) or `plain` (no STARTTLS offered); with a user and
/// password it requires AUTH. A recipient `nobody@…` is refused with 550, `busy@…` with 451.
public struct SMTPTestServer: Sendable {
    public let port: Int
    public let folder: URL
    public let certificates: TestCertificates
    let process: ChildProcess

    /// The authority to trust for this server's certificate (a PEM file).
    public var authority: String { certificates.certificate("ca") }

    /// Whether aiosmtpd can be imported: `make test` installs it; a bare `swift test` without it
    /// skips the tests that need this server (`.enabled(if: SMTPTestServer.isAvailable, …)`).
    public static let isAvailable: Bool = {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", "import aiosmtpd"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }()

    public static let unavailable: Comment =
        "skipped: no aiosmtpd for the SMTP test server (pip install aiosmtpd; `make test` installs it)"

    public static func start(mode: String, user: String? = "mailer", password: String? = "s3cret:pass") async throws
        -> SMTPTestServer
    {
        let certificates = try TestCertificates.make(names: ["smtp"])
        let folder = certificates.folder.appendingPathComponent("mail")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let port = try ChildProcess.freePort()
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("deploy/local/smtp-test-server.py").path
        var arguments = [
            "/usr/bin/env", "python3", script, "\(port)", folder.path, mode, certificates.certificate("smtp"),
            certificates.key("smtp"),
        ]
        if let user, let password { arguments += [user, password] }
        let log = certificates.folder.appendingPathComponent("server.log").path
        let process = try ChildProcess(name: "smtp", arguments: arguments, logFile: log)
        let ready = await waitUntil {
            FileManager.default.fileExists(atPath: folder.appendingPathComponent("ready").path)
                || process.hasExited()
        }
        guard ready, !process.hasExited() else {
            let output = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            throw ChildProcessError(
                reason: "the SMTP test server did not start (pip install aiosmtpd; make test does): \(output)")
        }
        return SMTPTestServer(port: port, folder: folder, certificates: certificates, process: process)
    }

    /// How many messages the server has accepted.
    public var receivedCount: Int {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).filter { $0.hasSuffix(".eml") }
            .count
    }

    /// The message numbered `number` (from 1) as the server received it, and its envelope.
    public func received(_ number: Int) throws -> (message: String, envelope: [String: Any]) {
        let base = folder.appendingPathComponent("\(number)")
        let message = try String(contentsOf: base.appendingPathExtension("eml"), encoding: .utf8)
        let envelope = try JSONSerialization.jsonObject(with: Data(contentsOf: base.appendingPathExtension("json")))
        return (message, envelope as? [String: Any] ?? [:])
    }

    /// The decoded text of the MIME part of `type` (`text/plain`, `text/html`) in `message`.
    public static func part(_ type: String, of message: String) -> String? {
        guard let start = message.range(of: "Content-Type: \(type); charset=utf-8\r\n") else { return nil }
        let rest = message[start.upperBound...]
        guard let body = rest.range(of: "\r\n\r\n") else { return nil }
        let encoded = rest[body.upperBound...].prefix { $0 != "-" }
        return Data(base64Encoded: encoded.replacingOccurrences(of: "\r\n", with: "")).map {
            String(decoding: $0, as: UTF8.self)
        }
    }

    public func stop() async {
        await process.stop()
        certificates.remove()
    }
}
