import Domain
import Foundation
import Logging
import NIOCore
import TestSupport
import Testing
import Wire

/// Wire over mutual TLS, with certificates made by `openssl` for each test run.
@Suite("Wire TLS")
struct WireTLSTests {
    static func tls(_ certificates: TestCertificates, _ name: String, authority: String = "ca") throws -> WireTLS {
        try WireTLS(
            certificatePath: certificates.certificate(name), keyPath: certificates.key(name),
            authorityPath: certificates.certificate(authority))
    }

    @Test("the certificate's and the authority's ends of validity are read, for the expiry metric")
    func expiry() throws {
        let certificates = try TestCertificates.make(names: ["server"])
        defer { certificates.remove() }
        let tls = try Self.tls(certificates, "server")
        // The test's certificates are made for two days.
        for expiry in [tls.certificateExpiry, tls.authorityExpiry] {
            let left = expiry.timeIntervalSinceNow
            #expect(left > 86_400 && left <= 2 * 86_400 + 60, "\(expiry)")
        }
        #expect(WireTLS.expiry(ofPEMFile: certificates.certificate("ca")) == tls.authorityExpiry)
        #expect(WireTLS.expiry(ofPEMFile: certificates.key("server")) == nil)
    }

    @Test("calls go through when both ends hold certificates of the authority, by address and by name")
    func mutual() async throws {
        let certificates = try TestCertificates.make(names: ["server", "caller"])
        defer { certificates.remove() }
        let server = try await RunningServer.start(tls: try Self.tls(certificates, "server"))
        for host in ["127.0.0.1", "localhost"] {
            let connection = try await server.connect(host: host, tls: try Self.tls(certificates, "caller"))
            let echo = try await connection.call(TestAPI.echo, TestAPI.Echo(text: "over TLS"))
            #expect(echo.text == "over TLS")
            await connection.close()
        }
        let pool = WireClient(
            configuration: WireClientConfiguration(
                service: "test", endpoints: [WireEndpoint(host: "127.0.0.1", port: server.port)],
                callerService: "tests", secret: testSecret, tls: try Self.tls(certificates, "caller")),
            logger: Logger(label: "test.client"))
        #expect(try await pool.call(TestAPI.echo, TestAPI.Echo(text: "pooled")).text == "pooled")
        await pool.close()
        try await server.stop()
    }

    @Test(
        "renewed files are served from the next connection on, without a restart; files that make no context are refused and the old ones kept"
    )
    func reload() async throws {
        let certificates = try TestCertificates.make(names: ["server"])
        defer { certificates.remove() }
        // The authority rolls over: a new one signs the server's next certificate and its callers'.
        _ = try TestCertificates.make(authority: "next", names: ["renewed", "caller"], in: certificates.folder)
        let live = certificates.folder.appendingPathComponent("live")
        try FileManager.default.createDirectory(at: live, withIntermediateDirectories: true)
        func install(_ certificate: String, _ authority: String) throws {
            for (from, to) in [
                (certificates.certificate(certificate), "tls.crt"), (certificates.key(certificate), "tls.key"),
                (certificates.certificate(authority), "ca.crt"),
            ] {
                let target = live.appendingPathComponent(to).path
                try? FileManager.default.removeItem(atPath: target)
                try FileManager.default.copyItem(atPath: from, toPath: target)
            }
        }
        try install("server", "ca")
        let tls = try WireTLS(
            certificatePath: live.appendingPathComponent("tls.crt").path,
            keyPath: live.appendingPathComponent("tls.key").path,
            authorityPath: live.appendingPathComponent("ca.crt").path)
        let server = try await RunningServer.start(tls: tls)
        let caller = try Self.tls(certificates, "caller", authority: "next")
        await #expect(throws: (any Error).self) { try await server.connect(tls: caller) }
        #expect(try tls.reloadIfChanged() == false)

        try install("renewed", "next")
        #expect(try tls.reloadIfChanged() == true)
        let connection = try await server.connect(tls: caller)
        #expect(try await connection.call(TestAPI.echo, TestAPI.Echo(text: "renewed")).text == "renewed")

        // A broken key: refused, and the renewed files still serve.
        try "not a key".write(to: live.appendingPathComponent("tls.key"), atomically: true, encoding: .utf8)
        #expect(throws: WireTLS.SetupError.self) { try tls.reloadIfChanged() }
        let again = try await server.connect(tls: caller)
        #expect(try await again.call(TestAPI.echo, TestAPI.Echo(text: "kept")).text == "kept")
        try await server.stop()
    }

    @Test("a caller without TLS, or with a certificate of another authority, is refused")
    func refusesStrangers() async throws {
        let certificates = try TestCertificates.make(names: ["server", "caller"])
        defer { certificates.remove() }
        _ = try TestCertificates.make(authority: "rogue", names: ["intruder"], in: certificates.folder)
        let server = try await RunningServer.start(tls: try Self.tls(certificates, "server"))
        await #expect(throws: OrderlyError.self) { try await server.connect() }
        // The intruder trusts our authority, so it would accept our server, but ours refuses it.
        let intruder = try WireTLS(
            certificatePath: certificates.certificate("intruder"), keyPath: certificates.key("intruder"),
            authorityPath: certificates.certificate("ca"))
        await #expect {
            try await server.connect(tls: intruder)
        } throws: {
            "\($0)".contains("UNKNOWN_CA")
        }
        try await server.stop()
    }

    @Test(
        "a caller refuses a server whose certificate its authority did not sign or names another host, or without TLS")
    func refusesImpostors() async throws {
        let certificates = try TestCertificates.make(names: ["caller"])
        defer { certificates.remove() }
        _ = try TestCertificates.make(authority: "rogue", names: ["impostor"], in: certificates.folder)
        let impostor = try await RunningServer.start(tls: try Self.tls(certificates, "impostor", authority: "ca"))
        await #expect {
            try await impostor.connect(tls: try Self.tls(certificates, "caller"))
        } throws: {
            "\($0)".contains("CERTIFICATE_VERIFY_FAILED")
        }
        try await impostor.stop()
        // Signed by the authority, but for another host.
        _ = try TestCertificates.make(names: ["elsewhere"], hosts: ["DNS:orders.internal"], in: certificates.folder)
        let misnamed = try await RunningServer.start(tls: try Self.tls(certificates, "elsewhere"))
        for host in ["127.0.0.1", "localhost"] {
            await #expect {
                try await misnamed.connect(host: host, tls: try Self.tls(certificates, "caller"))
            } throws: {
                "\($0)".contains("failedToValidateHostname")
            }
        }
        try await misnamed.stop()
        let plain = try await RunningServer.start()
        await #expect(throws: OrderlyError.self) { try await plain.connect(tls: try Self.tls(certificates, "caller")) }
        try await plain.stop()
    }

    @Test("files that are missing or not PEM are refused with the path named")
    func badFiles() throws {
        let certificates = try TestCertificates.make(names: ["server"])
        defer { certificates.remove() }
        #expect {
            _ = try WireTLS(
                certificatePath: "/nonexistent.pem", keyPath: certificates.key("server"),
                authorityPath: certificates.certificate("ca"))
        } throws: { "\($0)".contains("/nonexistent.pem") }
        #expect {
            _ = try WireTLS(
                certificatePath: certificates.certificate("server"), keyPath: certificates.certificate("server"),
                authorityPath: certificates.certificate("ca"))
        } throws: { "\($0)".contains("key") }
    }
}
