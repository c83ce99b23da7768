import Foundation
import Testing
import Wire

@testable import Runtime

/// The settings' catalogue: the typos it stops, the secrets read from files, the effective
/// settings logged, `--help`, and docs/CONFIGURATION.md kept equal to it.
@Suite("Settings catalogue")
struct SettingsCatalogueTests {
    let secret = ["ORDERLY_INTERNAL_SECRET": "0123456789abcdef0123"]

    @Test("an unknown ORDERLY_ variable or flag is named with the nearest setting; known ones, tools' included, pass")
    func unknownSettings() {
        let problems = ConfigurationSource.unknownSettings(
            arguments: ["orderly-gateway", "--wire-prot", "7000", "--log-level=debug"],
            environment: [
                "ORDERLY_HTTP_USER_REQUESTS_PER_SECONDS": "5", "ORDERLY_WIRE_PORT": "1",
                "ORDERLY_JWT_SECRET_FILE": "/x",
                "ORDERLY_TEST_POSTGRES_URL": "postgres://x", "HOME": "/root",
            ])
        #expect(
            problems == [
                "ORDERLY_HTTP_USER_REQUESTS_PER_SECONDS: not a setting; did you mean ORDERLY_HTTP_USER_REQUESTS_PER_SECOND?",
                "--wire-prot: not a setting; did you mean --wire-port?",
            ])
        #expect(ConfigurationSource.unknownSettings(arguments: ["x"], environment: secret).isEmpty)
    }

    @Test(
        "a secret is read from the file <VARIABLE>_FILE names, less its final line break; both set, or an empty file, is refused"
    )
    func secretFromFile() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("orderly-secret-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("internal").path
        try "fedcba9876543210fedcba\n".write(toFile: file, atomically: true, encoding: .utf8)
        func read(_ environment: [String: String]) async throws -> ProcessSettings {
            try ProcessSettings.read(
                service: "orders", defaultWirePort: 7101, defaultAdminPort: 9101,
                from: try await ConfigurationSource.load(arguments: ["orderly"], environment: environment))
        }
        let settings = try await read(["ORDERLY_INTERNAL_SECRET_FILE": file])
        let expected = try #require(WireSecret("fedcba9876543210fedcba"))
        #expect(
            settings.internalSecret.exportedPair(caller: "orders", server: "catalog")
                == expected.exportedPair(caller: "orders", server: "catalog"))
        do {
            _ = try await read([
                "ORDERLY_INTERNAL_SECRET_FILE": file, "ORDERLY_INTERNAL_SECRET": "0123456789abcdef0123",
            ])
            Issue.record("both were accepted")
        } catch let error as ConfigurationError {
            #expect(
                error.problems == ["ORDERLY_INTERNAL_SECRET and ORDERLY_INTERNAL_SECRET_FILE are both set: give one"])
        }
        try "".write(toFile: file, atomically: true, encoding: .utf8)
        do {
            _ = try await read(["ORDERLY_INTERNAL_SECRET_FILE": file])
            Issue.record("an empty file was accepted")
        } catch let error as ConfigurationError {
            #expect(error.problems.contains("ORDERLY_INTERNAL_SECRET_FILE: '\(file)' is empty"))
        }
        do {
            _ = try await read(["ORDERLY_INTERNAL_SECRET_FILE": folder.appendingPathComponent("none").path])
            Issue.record("a missing file was accepted")
        } catch let error as ConfigurationError {
            #expect(error.problems.contains { $0.hasPrefix("ORDERLY_INTERNAL_SECRET_FILE: cannot read") })
        }
    }

    @Test("the effective settings are one line, defaults included, secrets and URL passwords never shown")
    func effectiveSettings() async throws {
        var environment = secret
        environment["ORDERLY_REDIS_URL"] = "redis://:hunter2hunter2@cache:6379"
        environment["ORDERLY_WIRE_PORT"] = "7301"
        let source = try await ConfigurationSource.load(arguments: ["orderly"], environment: environment)
        _ = try ServiceSettings.read(
            service: "orders", defaultWirePort: 7101, defaultAdminPort: 9101, upstreams: [:], from: source)
        let line = source.effectiveSettings
        #expect(line.contains("ORDERLY_WIRE_PORT=7301 "))
        #expect(line.contains("ORDERLY_LOG_LEVEL=info "))
        #expect(line.contains("ORDERLY_INTERNAL_SECRET=(secret) "))
        #expect(line.contains("ORDERLY_REDIS_URL=redis://:(secret)@cache:6379 "))
        #expect(line.contains("ORDERLY_WIRE_KEYS=(none) "))
        #expect(!line.contains("hunter2") && !line.contains("0123456789abcdef"))
    }

    @Test("a key read that the catalogue lacks is reported: every setting is in --help")
    func uncataloguedKey() {
        var reader = ConfigurationSource.fixed([:]).settings()
        _ = reader.int("http.userRequestsPerSeconds", default: 1, in: 0...10)
        #expect(
            reader.failure.problems == [
                "ORDERLY_HTTP_USER_REQUESTS_PER_SECONDS (http.userRequestsPerSeconds) is read but not in Shared/Runtime/SettingsCatalogue.swift"
            ])
    }

    @Test("--help lists each setting a service reads, with its default and meaning, and none of another service's")
    func help() {
        let orders = ServiceMain.help(program: "orderly-orders", service: "orders")
        #expect(orders.contains("  ORDERLY_ORDER_LINE_HOLD_SECONDS\n      default: 900\n      how long the stock held"))
        #expect(orders.contains("  ORDERLY_INTERNAL_SECRET (secret)\n"))
        #expect(!orders.contains("ORDERLY_JWT_SECRET"))
        let gateway = ServiceMain.help(program: "orderly-gateway", service: "gateway")
        #expect(gateway.contains("  ORDERLY_JWT_SECRET (secret)\n") && !gateway.contains("ORDERLY_ORDER_LINE_HOLD"))
        #expect(
            gateway.contains(
                "ORDERLY_DATABASE_URL (secret)\n      default: sqlite:<data dir>/<service>.sqlite\n      sqlite:path[?synchronous=normal] or postgres://"
            ))
    }

    @Test("docs/CONFIGURATION.md's tables are the catalogue, section by section, row by row")
    func documentation() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let text = try String(contentsOf: root.appendingPathComponent("docs/CONFIGURATION.md"), encoding: .utf8)
        var documented: [String: [String]] = [:]
        var section = ""
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("## ") {
                section = String(line.dropFirst(3))
                #expect(documented[section] == nil, "\(section) appears twice")
                documented[section] = []
            } else if line.hasPrefix("| `") {
                documented[section, default: []].append(String(line))
            }
        }
        for scope in SettingDescription.Scope.allCases {
            let catalogued = SettingsCatalogue.all.filter { $0.scope == scope }.map(\.markdownRow)
            let rows = documented[scope.rawValue] ?? []
            #expect(rows == catalogued, "\(scope.rawValue): the document's rows and the catalogue's differ")
            for (row, entry) in zip(rows, catalogued) where row != entry {
                Issue.record("document: \(row)\ncatalogue: \(entry)")
                break
            }
        }
        #expect(Set(documented.keys) == Set(SettingDescription.Scope.allCases.map(\.rawValue)))
    }
}
