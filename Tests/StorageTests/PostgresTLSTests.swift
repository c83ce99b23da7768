import Foundation
import Logging
import SQLKit
import Storage
import TestSupport
import Testing

/// TLS to a managed PostgreSQL: `sslmode=verify-ca|verify-full` with `sslrootcert`, against the
/// throwaway cluster `make test` starts with TLS on (a certificate for 127.0.0.1 alone, signed by
/// the authority in `ORDERLY_TEST_POSTGRES_CA`).
@Suite("PostgreSQL over TLS")
struct PostgresTLSTests {
    static let authority = ProcessInfo.processInfo.environment["ORDERLY_TEST_POSTGRES_CA"]

    /// The test server's URL with `host` and the TLS parameters given.
    static func url(host: String, _ parameters: String) throws -> String {
        let server = try TestDatabase.postgresServerURL()
        let port = try #require(URLComponents(string: server)?.port)
        return "postgres://orderly@\(host):\(port)/postgres?\(parameters)"
    }

    static func connects(_ url: String) async -> Result<Bool, any Error> {
        do {
            // The pool logs each refused handshake at info: only what is worse is shown.
            var logger = Logger(label: "tls")
            logger.logLevel = .warning
            let database = try await Database.open(try DatabaseLocation(url: url), logger: logger)
            defer { Task { await database.close() } }
            let encrypted = try await database.read {
                try await $0.raw("SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()").first()?
                    .decode(column: "ssl", as: Bool.self)
            }
            await database.close()
            return .success(encrypted ?? false)
        } catch {
            return .failure(error)
        }
    }

    @Test("the URL takes verify-ca and verify-full with sslrootcert, and names what is wrong")
    func parsing() throws {
        let location = try DatabaseLocation(url: "postgres://u@db/orders?sslmode=verify-full&sslrootcert=/etc/hostname")
        guard case .postgres(let settings) = location else {
            Issue.record("not a PostgreSQL location")
            return
        }
        #expect(settings.tls == .verifyFull && settings.rootCertificates == "/etc/hostname")
        #expect(throws: DatabaseLocationError.self) { try DatabaseLocation(url: "postgres://u@db/o?sslmode=verify") }
        do {
            _ = try DatabaseLocation(url: "postgres://u@db/o?sslrootcert=/no/such/ca.pem")
            Issue.record("a missing sslrootcert was accepted")
        } catch {
            #expect(error.reason == "sslrootcert names no readable file: '/no/such/ca.pem'")
        }
    }

    @Test(
        "verify-full connects over TLS to the host its certificate names, and refuses another name; verify-ca checks the chain alone; another authority is refused",
        .enabled(
            if: TestDatabase.hasPostgres && authority != nil,
            "skipped: no PostgreSQL server with TLS given (ORDERLY_TEST_POSTGRES_URL and _CA; `make test` starts one)"))
    func verification() async throws {
        let authority = try #require(Self.authority)
        let other = try TestCertificates.make(names: ["other"])
        // The certificate names localhost alone: by the address, only verify-ca connects. The
        // refusals each wait out the pool's attempts, side by side.
        let urls = [
            try Self.url(host: "localhost", "sslmode=verify-full&sslrootcert=\(authority)"),
            try Self.url(host: "127.0.0.1", "sslmode=verify-ca&sslrootcert=\(authority)"),
            try Self.url(host: "127.0.0.1", "sslmode=verify-full&sslrootcert=\(authority)"),
            // Another authority, or the system's (which never signed it), is refused.
            try Self.url(host: "localhost", "sslmode=verify-ca&sslrootcert=\(other.certificate("ca"))"),
            try Self.url(host: "localhost", "sslmode=require"),
        ]
        async let full = Self.connects(urls[0])
        async let chainOnly = Self.connects(urls[1])
        async let wrongName = Self.connects(urls[2])
        async let wrongAuthority = Self.connects(urls[3])
        async let system = Self.connects(urls[4])
        let results = await (full, chainOnly, wrongName, wrongAuthority, system)
        #expect((try? results.0.get()) == true, "\(results.0)")
        #expect((try? results.1.get()) == true, "\(results.1)")
        #expect((try? results.2.get()) == nil, "\(results.2)")
        #expect((try? results.3.get()) == nil, "\(results.3)")
        #expect((try? results.4.get()) == nil, "\(results.4)")
    }
}
