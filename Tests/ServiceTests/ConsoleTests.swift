import Foundation
import Testing

@testable import Gateway

/// The admin web's files as the gateway serves them: every answer forbidding framing and
/// anything inline, a file's type from its extension, nothing outside the console's own files.
/// The console itself is tested in a browser by `make test` (deploy/local/console-test.py).
@Suite("Console")
struct ConsoleTests {
    @Test("the console's page and modules, each with the security headers; /console goes to /console/")
    func served() async throws {
        try await InProcessSuite.with { suite in
            let page = try await suite.request("GET", "/console/", headers: [:], body: nil)
            #expect(page.status == 200)
            #expect(page.headers["content-type"] == "text/html; charset=utf-8")
            #expect(page.text.contains(#"<script type="module" src="js/app.js">"#))
            let policy = try #require(page.headers["content-security-policy"])
            #expect(policy.contains("script-src 'self'") && policy.contains("frame-ancestors 'none'"))
            #expect(!policy.contains("unsafe-inline") && !policy.contains("unsafe-eval"))
            #expect(page.headers["x-frame-options"] == "DENY")
            #expect(page.headers["x-content-type-options"] == "nosniff")

            let module = try await suite.request("GET", "/console/js/app.js", headers: [:], body: nil)
            #expect(module.status == 200 && module.headers["content-type"] == "text/javascript; charset=utf-8")
            #expect(module.headers["x-frame-options"] == "DENY")

            let bare = try await suite.request("GET", "/console", headers: [:], body: nil)
            #expect(bare.status == 301 && bare.headers["location"] == "/console/")

            for path in ["/console/js/missing.js", "/console/../openapi.yaml", "/console/js/%2E%2E/index.html"] {
                let missing = try await suite.request("GET", path, headers: [:], body: nil)
                #expect(
                    missing.status == 404 || missing.status == 200 && missing.text.contains("<!doctype html>"),
                    "\(path)")
                #expect(!missing.text.contains("openapi: "), "\(path) served something outside the console")
            }
        }
    }

    @Test("every page, module and stylesheet is a file with a known type; one of another kind stops the gateway")
    func knownTypesOnly() throws {
        let bundled = try ConsoleRoutes.bundled()
        #expect(
            bundled.files["index.html"] != nil && bundled.files["js/app.js"] != nil
                && bundled.files["console.css"] != nil)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("console-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data("<!doctype html>".utf8).write(to: directory.appendingPathComponent("index.html"))
        #expect(try ConsoleRoutes.load(from: directory).files.keys.sorted() == ["index.html"])
        try Data([0x4d, 0x5a]).write(to: directory.appendingPathComponent("tool.exe"))
        #expect(throws: (any Error).self) { try ConsoleRoutes.load(from: directory) }
    }
}
