import Domain
import Foundation
import Storage
import Testing

/// What the gateway answers to bad and hostile input, with every service in this process: a
/// clear 4xx naming the fields, never a crash.
@Suite("Bad input", .serialized)
struct BadInputTests {
    let api: API

    init() throws { api = try API() }

    @Test("missing, empty, out-of-range and unknown fields are named; big bodies are 413")
    func validation() async throws {
        try await InProcessSuite.with { suite in
            let admin = try await api.admin(suite)
            let store = try await api.createStore(suite, admin: admin, ["name": "S"])
            _ = try await api.createUser(suite, admin: admin, ["email": "s@a.com", "role": "staff", "store_id": store])
            let staff = try await api.token(suite, "s@a.com")

            let empty = try await api.send(
                suite, "POST", "/v1/orders", token: staff,
                json: ["recipient_first_name": "", "recipient_last_name": "  ", "boxes_count": 2],
                headers: ["Idempotency-Key": "k-empty"])
            #expect(empty.status == 400)
            let details = empty.error["details"] as? [String: String] ?? [:]
            #expect(details["recipient_first_name"] == "must not be empty")
            #expect(details["recipient_last_name"] == "must not be empty")
            #expect(
                Set(details.keys) == ["recipient_first_name", "recipient_last_name", "phone", "street", "building_no"])

            for boxes in [0, -3] {
                let reply = try await api.send(
                    suite, "POST", "/v1/orders", token: staff, json: API.delivery(boxes: boxes),
                    headers: ["Idempotency-Key": "k\(boxes)"])
                #expect(reply.status == 400)
                #expect((reply.error["details"] as? [String: String])?.keys.sorted() == ["boxes_count"])
            }
            // A field the body's type does not know is refused, each one named, before anything
            // else is checked: an older client's spelling is never silently dropped.
            var withUnknown = API.delivery(boxes: 0)
            withUnknown["unknown_field"] = "dropped?"
            withUnknown["boxes"] = 2
            let refused = try await api.send(
                suite, "POST", "/v1/orders", token: staff, json: withUnknown, headers: ["Idempotency-Key": "k-unknown"])
            #expect(refused.status == 400 && refused.error["code"] as? String == "invalid_argument", "\(refused.text)")
            #expect(
                refused.error["details"] as? [String: String] == [
                    "unknown_field": "unknown field", "boxes": "unknown field",
                ])
            let order = try #require(
                try await api.send(
                    suite, "POST", "/v1/orders", token: staff, json: API.delivery(boxes: 1),
                    headers: ["Idempotency-Key": "k-ok"]
                ).object["id"] as? String)
            // The seed's line of a repair shop: its own spellings of the price, named together.
            let seedLine = try await api.send(
                suite, "POST", "/v1/orders/\(order)/items", token: staff,
                json: ["type": "repair", "description": "Screen", "unit_price": 11_800, "price_inc_vat": true])
            #expect(seedLine.status == 400)
            #expect(
                seedLine.error["details"] as? [String: String] == [
                    "unit_price": "unknown field", "price_inc_vat": "unknown field",
                ])
            // Nested: a PATCH's expected_version is known, a store's delivery tier's typo is not;
            // a field of the wrong type is named beside it.
            let nested = try await api.send(
                suite, "PATCH", "/v1/stores/\(store)", token: admin,
                json: [
                    "expected_version": 1, "low_stock_default": "two",
                    "delivery_pricing": ["tiers": [["max_boxes": 8, "fee": 3500, "multiplier": 1, "fees": 1]]],
                ])
            #expect(nested.status == 400)
            #expect(
                Set((nested.error["details"] as? [String: String] ?? [:]).keys) == [
                    "delivery_pricing.tiers[0].fees", "low_stock_default",
                ], "\(nested.text)")

            let noKey = try await api.send(
                suite, "POST", "/v1/orders", token: staff, json: API.delivery(boxes: 1))
            #expect(noKey.status == 400 && (noKey.error["details"] as? [String: String])?["Idempotency-Key"] != nil)

            let wrongType = try await api.send(
                suite, "POST", "/v1/orders", token: staff, json: ["boxes_count": "eight"],
                headers: ["Idempotency-Key": "k-type"])
            #expect(wrongType.status == 400 && (wrongType.error["details"] as? [String: String])?["boxes_count"] != nil)

            let big = Data(("{\"notes\":\"" + String(repeating: "x", count: 2 << 20) + "\"}").utf8)
            let tooLarge = try await api.send(
                suite, "POST", "/v1/orders", token: staff, raw: big, headers: ["Idempotency-Key": "k-big"])
            #expect(tooLarge.status == 413)

            let unauthenticated = try await api.send(suite, "GET", "/v1/orders")
            #expect(unauthenticated.status == 401)
            let forged = try await api.send(suite, "GET", "/v1/orders", token: "e30.e30.c2ln")
            #expect(forged.status == 401)

            // Ten attempts per account in five minutes; the eleventh is refused, even with the
            // right password.
            for _ in 0..<9 {
                let wrong = try await api.send(
                    suite, "POST", "/v1/auth/login", json: ["email": "s@a.com", "password": "wrong-password"])
                #expect(wrong.status == 401 && wrong.error["reason"] as? String == "invalid_credentials")
            }
            let limited = try await api.send(
                suite, "POST", "/v1/auth/login", json: ["email": "s@a.com", "password": "password-123"])
            #expect(limited.status == 429 && limited.headers["retry-after"] == "300", "\(limited.text)")
        }
    }

    @Test(
        "each operation lists its reasons from a closed set: every one declared (ErrorReason), every declared one listed"
    )
    func reasonsAreClosedSets() throws {
        let declared = Set(ErrorReason.declared.map(\.rawValue))
        #expect(declared.count == ErrorReason.declared.count, "a reason is declared twice")
        #expect(ErrorReason.declared.allSatisfy { $0.code != nil })
        var listed = Set(api.document.root["x-reasons-anywhere"] as? [String] ?? [])
        for (name, operation) in api.document.operations {
            let reasons = operation["x-reasons"] as? [String]
            #expect(reasons != nil, "\(name) has no x-reasons")
            listed.formUnion(reasons ?? [])
        }
        #expect(listed.subtracting(declared).isEmpty, "listed, not declared: \(listed.subtracting(declared).sorted())")
        #expect(
            declared.subtracting(listed).isEmpty, "declared, listed nowhere: \(declared.subtracting(listed).sorted())")
    }

    @Test("the gateway serves exactly the document's routes and methods; another method is 405 with Allow")
    func routesAndMethods() async throws {
        try await InProcessSuite.with { suite in
            let admin = try await api.admin(suite)
            let methods = ["GET", "POST", "PUT", "PATCH", "DELETE", "TRACE", "OPTIONS"]
            for (template, item) in api.document.paths {
                let documented = Set(
                    ((item as? [String: Any]) ?? [:]).keys.map { $0.uppercased() }.filter(methods.contains))
                let path = template.replacingOccurrences(
                    of: #"\{[a-z_]+\}"#, with: "0f8fad5b-d9cb-469f-a165-70867728950e", options: .regularExpression)
                for method in methods {
                    // An event stream that starts never ends: a bad Last-Event-ID answers at once.
                    let reply = try await suite.request(
                        method, path, headers: ["Authorization": "Bearer \(admin)", "Last-Event-ID": "none"], body: nil)
                    if documented.contains(method) {
                        #expect(
                            reply.status != 405 && reply.error["message"] as? String != "no such route",
                            "\(method) \(path)")
                    } else {
                        #expect(reply.status == 405, "\(method) \(path): \(reply.status)")
                        #expect(
                            reply.headers["allow"] == documented.sorted().joined(separator: ", "), "\(method) \(path)")
                    }
                }
            }
            let nowhere = try await suite.request("GET", "/v1/nowhere", headers: [:], body: nil)
            #expect(nowhere.status == 404)
        }
    }

    @Test(
        "the document says every request body's objects take no field they do not list (the provider's reports aside)")
    func strictBodiesDocumented() throws {
        let schemas = (api.document.root["components"] as? [String: Any])?["schemas"] as? [String: Any] ?? [:]
        var open: [String] = []
        var seen: Set<String> = []
        func walk(_ node: Any, at place: String) {
            if let list = node as? [Any] {
                for item in list { walk(item, at: place) }
                return
            }
            guard let schema = node as? [String: Any] else { return }
            if let ref = schema["$ref"] as? String {
                let name = String(ref.split(separator: "/").last ?? "")
                guard name != "ProviderEvent", seen.insert(name).inserted else { return }
                walk(schemas[name] as Any, at: name)
                return
            }
            let types = (schema["type"] as? [String]) ?? [(schema["type"] as? String) ?? ""]
            // A map (additionalProperties a schema) takes any key by design, as a dictionary does.
            if types.contains("object"), schema["additionalProperties"] as? Bool != false,
                schema["additionalProperties"] as? [String: Any] == nil,
                schema["unevaluatedProperties"] as? Bool != false
            {
                open.append(place)
            }
            for (key, value) in schema where !["if", "then", "else", "not", "description", "example"].contains(key) {
                if key == "properties", let properties = value as? [String: Any] {
                    for (name, property) in properties { walk(property, at: "\(place).\(name)") }
                } else {
                    walk(value, at: place)
                }
            }
        }
        for (name, operation) in api.document.operations where !name.hasSuffix("/provider-events") {
            if let body = operation["requestBody"] { walk(body, at: name) }
        }
        #expect(seen.count > 40, "\(seen.count) schemas reached")
        #expect(open.isEmpty, "objects of request bodies that take any field: \(open.sorted())")
    }

    @Test("the document states the cursor's form as the server reads it")
    func cursorPattern() throws {
        let parameters = (api.document.root["components"] as? [String: Any])?["parameters"] as? [String: Any]
        let cursor = parameters?["Cursor"] as? [String: Any]
        #expect((cursor?["schema"] as? [String: Any])?["pattern"] as? String == KeysetCursor.pattern)
    }

    @Test("junk sent to every route gets a documented 4xx and no process falls over")
    func junkToEveryRoute() async throws {
        try await InProcessSuite.with { suite in
            let admin = try await api.admin(suite)
            let bodies: [Data] = [
                Data("{".utf8), Data("[]".utf8), Data("null".utf8), Data("\"text\"".utf8), Data([0xff, 0xfe, 0x00]),
                Data(#"{"boxes_count": 1e400, "id": "x", "store_id": 5, "on_duty": "yes", "amount": -1}"#.utf8),
                Data(
                    #"{"a":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}"#
                        .utf8),
            ]
            var problems: [String] = []
            for (template, item) in api.document.paths {
                for method in (item as? [String: Any] ?? [:]).keys
                where ["get", "post", "put", "patch", "delete"].contains(method) {
                    for id in ["00000000-0000-0000-0000-000000000000", "not-a-uuid", "%00"] {
                        let path = template.replacingOccurrences(of: "{id}", with: id)
                            .replacingOccurrences(of: "{item_id}", with: id)
                            .replacingOccurrences(of: "{action}", with: "claim")
                        for token in [nil, admin, "junk"] {
                            // URLSession sends no body with a GET.
                            for body in method == "get" || method == "delete" ? [Data()] : bodies + [Data()] {
                                let query = method == "get" ? "?limit=-1&after=x&wait=99&status=nope&cursor=%%%" : ""
                                var headers = ["Idempotency-Key": String(repeating: "k", count: 300), "If-Match": "x"]
                                if let token { headers["Authorization"] = "Bearer \(token)" }
                                let reply = try await suite.request(
                                    method.uppercased(), path + query, headers: headers,
                                    body: body.isEmpty ? nil : body)
                                if reply.status >= 500 {
                                    problems.append("\(method) \(path): \(reply.status) \(reply.text)")
                                }
                                if !id.hasPrefix("%") {
                                    problems += api.document.check(
                                        method: method.uppercased(), path: path, status: reply.status, body: reply.body,
                                        contentType: reply.headers["content-type"])
                                }
                            }
                        }
                    }
                }
            }
            #expect(problems.isEmpty, "\(problems.prefix(20).joined(separator: "\n"))")
            // Readiness and metrics are the admin port's only: the public one does not know them.
            for path in ["/readyz", "/healthz", "/metrics"] {
                #expect(try await suite.request("GET", path, headers: [:], body: nil).status == 404, "\(path)")
            }
        }
    }
}
