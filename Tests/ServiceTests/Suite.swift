import Domain
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A whole Orderly to drive over HTTP, as the apps drive it: the five services in this process
/// (`InProcessSuite`) or as separate processes (`RunningSuite`).
protocol Suite: Sendable {
    var adminEmail: String { get }
    var adminPassword: String { get }

    /// Sends one request to the gateway.
    func request(_ method: String, _ path: String, headers: [String: String], body: Data?) async throws -> Reply
}

/// A gateway's answer.
struct Reply: Sendable {
    var status: Int
    /// Names lower-cased.
    var headers: [String: String]
    var body: Data

    /// The body as JSON (an object or array), or nil.
    var json: Any? { try? JSONSerialization.jsonObject(with: body) }
    var object: [String: Any] { json as? [String: Any] ?? [:] }
    var error: [String: Any] { object["error"] as? [String: Any] ?? [:] }
    var text: String { String(decoding: body, as: UTF8.self) }
}

/// Requests to a suite, each answer checked against `/openapi.yaml`, and the steps most tests
/// begin with.
struct API: Sendable {
    let document: OpenAPIDocument

    init() throws { document = try OpenAPIDocument() }

    /// Sends a request (JSON when `json` is given) and checks the reply against the document.
    func send(
        _ suite: any Suite, _ method: String, _ path: String, token: String? = nil, json: Any? = nil,
        raw: Data? = nil, headers: [String: String] = [:], sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> Reply {
        var headers = headers
        if let token { headers["Authorization"] = "Bearer \(token)" }
        var body = raw
        if let json {
            body = try JSONSerialization.data(withJSONObject: json)
            headers["Content-Type"] = "application/json"
        }
        let reply = try await suite.request(method, path, headers: headers, body: body)
        let problems = document.check(
            method: method, path: path, status: reply.status, body: reply.body,
            contentType: reply.headers["content-type"])
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))", sourceLocation: sourceLocation)
        // Every reason given beside a field has its words in every language.
        if reply.status == 400, reply.headers["content-language"] == "en",
            let details = reply.error["details"] as? [String: Any]
        {
            for case let (field, reason as String) in details where !FieldReasonTexts.knows(reason) {
                Issue.record(
                    "no Hebrew and Arabic for the reason beside \(field): \(reason)", sourceLocation: sourceLocation)
            }
        }
        return reply
    }

    func login(_ suite: any Suite, _ email: String, _ password: String) async throws -> [String: Any] {
        let reply = try await send(suite, "POST", "/v1/auth/login", json: ["email": email, "password": password])
        try #require(reply.status == 200, "\(reply.text)")
        return reply.object
    }

    /// The access token of the bootstrap admin.
    func admin(_ suite: any Suite, password: String? = nil) async throws -> String {
        try await login(suite, suite.adminEmail, password ?? suite.adminPassword)["access_token"] as! String
    }

    /// The access token of a user made by `createUser`.
    func token(_ suite: any Suite, _ email: String) async throws -> String {
        try await login(suite, email, "password-123")["access_token"] as! String
    }

    /// A user made by `admin` with the password `password-123`.
    func createUser(_ suite: any Suite, admin: String, _ fields: [String: Any]) async throws -> [String: Any] {
        var body = fields
        body["password"] = "password-123"
        body["name"] = body["name"] ?? "Someone"
        let reply = try await send(suite, "POST", "/v1/users", token: admin, json: body)
        try #require(reply.status == 201, "\(reply.text)")
        return reply.object
    }

    /// A store made by `admin`; returns its id.
    func createStore(_ suite: any Suite, admin: String, _ fields: [String: Any]) async throws -> String {
        let reply = try await send(suite, "POST", "/v1/stores", token: admin, json: fields)
        try #require(reply.status == 201, "\(reply.text)")
        return reply.object["id"] as! String
    }

    /// A delivery order's body with `boxes` boxes.
    static func delivery(boxes: Int) -> [String: Any] {
        [
            "recipient_first_name": "Dana", "recipient_last_name": "Levi", "phone": "050-1234567",
            "street": "Herzl", "building_no": "12", "floor": "3", "apartment": "7", "city": "Tel Aviv",
            "boxes_count": boxes,
        ]
    }
}

/// A small HTTP client over URLSession, for suites of processes.
struct HTTPClient: Sendable {
    let baseURL: String

    func send(
        _ method: String, _ path: String, token: String? = nil, headers: [String: String] = [:], body: Data? = nil,
        timeout: TimeInterval = 40
    ) async throws -> Reply {
        var request = URLRequest(url: URL(string: baseURL + path)!)
        request.httpMethod = method
        request.timeoutInterval = timeout
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        request.httpBody = body
        let (data, response) = try await URLSession.shared.data(for: request)
        let http = response as! HTTPURLResponse
        var replyHeaders: [String: String] = [:]
        for (name, value) in http.allHeaderFields {
            replyHeaders[String(describing: name).lowercased()] = String(describing: value)
        }
        return Reply(status: http.statusCode, headers: replyHeaders, body: data)
    }
}
