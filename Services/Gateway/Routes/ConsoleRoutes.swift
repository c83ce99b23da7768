import Domain
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// `/console/`: the admin web, static files from the gateway's resources, read once at start.
///
/// The console is a client of the public API like any other (it calls `/v1/…` with the user's
/// token), so this serves files and nothing else. Every answer forbids framing, inline script
/// and style and any origin but the gateway's own.
struct ConsoleRoutes: Sendable {
    struct File: Sendable {
        let body: ByteBuffer
        let contentType: String
    }

    /// The files by their path under `/console/` (`index.html`, `js/app.js`, …).
    let files: [String: File]

    static let securityHeaders: HTTPFields = [
        .contentSecurityPolicy:
            "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
            + "font-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
        .xFrameOptions: "DENY",
        .xContentTypeOptions: "nosniff",
        .referrerPolicy: "no-referrer",
        .cacheControl: "no-cache",
    ]

    static let contentTypes = [
        "html": "text/html; charset=utf-8", "js": "text/javascript; charset=utf-8", "css": "text/css; charset=utf-8",
        "svg": "image/svg+xml", "json": "application/json", "txt": "text/plain; charset=utf-8",
    ]

    /// Reads every file under `directory`; a file of a type not in `contentTypes` is refused, so
    /// nothing is served as something a browser would guess at.
    static func load(from directory: URL) throws -> ConsoleRoutes {
        var files: [String: File] = [:]
        let root = directory.standardizedFileURL.path
        guard let walker = FileManager.default.enumerator(atPath: root) else {
            throw OrderlyError(.internal, "the console's files are missing from the gateway's resources")
        }
        while let relative = walker.nextObject() as? String {
            var isDirectory: ObjCBool = false
            let path = root + "/" + relative
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue
            else { continue }
            guard let type = contentTypes[(relative as NSString).pathExtension] else {
                throw OrderlyError(.internal, "console/\(relative): no content type for its extension")
            }
            let data = try Data(contentsOf: URL(fileURLWithPath: path))
            files[relative] = File(body: ByteBuffer(bytes: data), contentType: type)
        }
        guard files["index.html"] != nil else {
            throw OrderlyError(.internal, "the console's index.html is missing from the gateway's resources")
        }
        return ConsoleRoutes(files: files)
    }

    /// The console's files in the gateway's resources.
    static func bundled() throws -> ConsoleRoutes {
        guard let url = Bundle.module.url(forResource: "Console", withExtension: nil) else {
            throw OrderlyError(.internal, "the console's files are missing from the gateway's resources")
        }
        return try load(from: url)
    }

    func add(to router: Router<GatewayContext>) {
        // The router takes `/console` and `/console/` for one path; the page's relative addresses
        // need the slash, so the first is sent to the second.
        router.get("/console") { request, _ in
            guard request.uri.path.hasSuffix("/") else {
                var headers = Self.securityHeaders
                headers[.location] = "/console/"
                return Response(status: .movedPermanently, headers: headers)
            }
            return try answer("index.html")
        }
        router.get("/console/**") { _, context in
            try answer(context.parameters.getCatchAll().joined(separator: "/"))
        }
    }

    private func answer(_ path: String) throws -> Response {
        guard let file = files[path.isEmpty ? "index.html" : path] else {
            throw OrderlyError(.notFound, "no such page in the console")
        }
        var headers = Self.securityHeaders
        headers[.contentType] = file.contentType
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: file.body))
    }
}
