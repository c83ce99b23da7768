import Domain
import Foundation
import Gateway
import Yams

/// The gateway's OpenAPI document, read with Yams, and a validator for the JSON Schema subset
/// it uses (`$ref`, `allOf`, `oneOf`, `anyOf`, `type` (one or a list), `properties`, `required`, `items`, `enum`,
/// `const`, `format` uuid and date-time, `additionalProperties`, `minimum`/`maximum`, `minLength`/`maxLength`).
struct OpenAPIDocument: @unchecked Sendable {
    // Immutable after init: a parsed YAML tree that is only read.
    let root: [String: Any]

    init() throws {
        let buffer = try GatewayService.openAPIDocument()
        let text = String(decoding: buffer.readableBytesView, as: UTF8.self)
        guard let root = try Yams.load(yaml: text) as? [String: Any] else {
            throw OpenAPIError(problems: ["the document is not a YAML mapping"])
        }
        self.root = root
    }

    var paths: [String: Any] { root["paths"] as? [String: Any] ?? [:] }

    /// The document's path template that matches `path` (`/v1/orders/{id}` for `/v1/orders/3f…`).
    func template(for path: String) -> String? {
        let parts = path.split(separator: "?").first.map { $0.split(separator: "/") } ?? []
        // A literal segment wins over a parameter (`/v1/orders/changes` over `/v1/orders/{id}`).
        return paths.keys.filter { template in
            let templateParts = template.split(separator: "/")
            guard templateParts.count == parts.count else { return false }
            return zip(templateParts, parts).allSatisfy { $0.hasPrefix("{") || $0 == $1 }
        }.min { $0.filter { $0 == "{" }.count < $1.filter { $0 == "{" }.count }
    }

    /// Problems with a response: route, method or status not documented, or a body that does
    /// not match the schema.
    func check(method: String, path: String, status: Int, body: Data, contentType: String?) -> [String] {
        guard let template = template(for: path) else { return ["\(path) is not in the document"] }
        guard let operation = (paths[template] as? [String: Any])?[method.lowercased()] as? [String: Any] else {
            return ["\(method) \(template) is not in the document"]
        }
        let responses = operation["responses"] as? [String: Any] ?? [:]
        guard var response = (responses["\(status)"] ?? responses["default"]) as? [String: Any] else {
            return ["\(method) \(template) does not document status \(status)"]
        }
        if let ref = response["$ref"] as? String { response = resolve(ref) }
        guard let content = response["content"] as? [String: Any] else {
            return body.isEmpty ? [] : ["\(method) \(template) \(status) documents no body but one came"]
        }
        let type = contentType?.split(separator: ";").first.map(String.init) ?? "none"
        guard let json = content["application/json"] as? [String: Any], let schema = json["schema"],
            type == "application/json"
        else {
            // A text body, of a type the response documents.
            return content[type] == nil ? ["\(method) \(template) \(status): content type \(type) not documented"] : []
        }
        guard let value = try? JSONDecoder().decode(JSONValue.self, from: body) else {
            return ["\(method) \(template) \(status): body is not JSON"]
        }
        var problems: [String] = []
        validate(value, against: schema, at: "\(method) \(template) \(status) body", problems: &problems)
        if case .object(let envelope) = value, case .object(let error)? = envelope["error"],
            case .string(let reason)? = error["reason"], !reasons(of: operation).contains(reason)
        {
            problems.append("\(method) \(template) \(status): reason \(reason) is not in its x-reasons")
        }
        return problems
    }

    /// The reasons an operation answers: its own `x-reasons` and the document's
    /// `x-reasons-anywhere`.
    func reasons(of operation: [String: Any]) -> Set<String> {
        Set((operation["x-reasons"] as? [String] ?? []) + (root["x-reasons-anywhere"] as? [String] ?? []))
    }

    /// Every operation of the document, by `METHOD /template`.
    var operations: [String: [String: Any]] {
        var all: [String: [String: Any]] = [:]
        for (template, item) in paths {
            for (method, operation) in item as? [String: Any] ?? [:] {
                if let operation = operation as? [String: Any] { all["\(method.uppercased()) \(template)"] = operation }
            }
        }
        return all
    }

    /// Problems with the body of a webhook delivery of `type`: not documented under
    /// `webhooks`, or not of its schema.
    func checkWebhook(type: String, body: String) -> [String] {
        guard
            let operation = ((root["webhooks"] as? [String: Any])?[type] as? [String: Any])?["post"] as? [String: Any],
            let content = (operation["requestBody"] as? [String: Any])?["content"] as? [String: Any],
            let schema = (content["application/json"] as? [String: Any])?["schema"]
        else { return ["webhook \(type) is not in the document"] }
        guard let value = try? JSONDecoder().decode(JSONValue.self, from: Data(body.utf8)) else {
            return ["webhook \(type): body is not JSON"]
        }
        var problems: [String] = []
        validate(value, against: schema, at: "webhook \(type) body", problems: &problems)
        return problems
    }

    func resolve(_ ref: String) -> [String: Any] {
        var node: Any = root
        for part in ref.dropFirst(2).split(separator: "/") {
            node = (node as? [String: Any])?[String(part)] ?? [:]
        }
        return node as? [String: Any] ?? [:]
    }

    func validate(_ value: JSONValue, against schemaNode: Any, at path: String, problems: inout [String]) {
        guard var schema = schemaNode as? [String: Any] else { return }
        if let ref = schema["$ref"] as? String { schema = resolve(ref) }
        if let parts = schema["allOf"] as? [Any] {
            // One schema of them all: their properties and requirements together, a later
            // part's property narrowing an earlier one's.
            var merged = schema
            merged["allOf"] = nil
            var properties = merged["properties"] as? [String: Any] ?? [:]
            var required = merged["required"] as? [String] ?? []
            for part in parts {
                guard var part = part as? [String: Any] else { continue }
                if let ref = part["$ref"] as? String { part = resolve(ref) }
                for (name, property) in part["properties"] as? [String: Any] ?? [:] {
                    if let earlier = properties[name] {
                        properties[name] = ["allOf": [earlier, property]]
                    } else {
                        properties[name] = property
                    }
                }
                required += part["required"] as? [String] ?? []
                for key in ["type", "additionalProperties"] where merged[key] == nil { merged[key] = part[key] }
            }
            merged["properties"] = properties
            merged["required"] = required
            validate(value, against: merged, at: path, problems: &problems)
            return
        }
        if let constant = schema["const"] {
            let matches: Bool
            switch value {
            case .string(let text): matches = (constant as? String) == text
            case .int(let number): matches = (constant as? Int).map(Int64.init) == number
            case .bool(let flag): matches = (constant as? Bool) == flag
            default: matches = false
            }
            if !matches { problems.append("\(path): \(value) is not \(constant)") }
        }
        if let branches = schema["oneOf"] as? [Any] {
            let matching = branches.filter { branch in
                var branchProblems: [String] = []
                validate(value, against: branch, at: path, problems: &branchProblems)
                return branchProblems.isEmpty
            }
            if matching.count != 1 { problems.append("\(path): matches \(matching.count) of its oneOf schemas, not 1") }
            return
        }
        if let branches = schema["anyOf"] as? [Any] {
            let matches = branches.contains { branch in
                var branchProblems: [String] = []
                validate(value, against: branch, at: path, problems: &branchProblems)
                return branchProblems.isEmpty
            }
            if !matches { problems.append("\(path): matches none of its anyOf schemas") }
            return
        }
        if let types = schema["type"] {
            let allowed = (types as? [Any] ?? [types]).compactMap { $0 as? String }
            guard allowed.contains(where: { Self.matches(value, type: $0) }) else {
                problems.append("\(path): \(value) is not of type \(allowed.joined(separator: "|"))")
                return
            }
        }
        if let choices = schema["enum"] as? [Any] {
            let matched = choices.contains { choice in
                switch value {
                case .null: return choice is NSNull
                case .string(let text): return (choice as? String) == text
                default: return false
                }
            }
            if !matched { problems.append("\(path): \(value) is not one of \(choices)") }
        }
        switch value {
        case .string(let text):
            if let format = schema["format"] as? String {
                if format == "uuid", UUID(uuidString: text) == nil {
                    problems.append("\(path): '\(text)' is not a uuid")
                }
                if format == "date-time", RFC3339.parse(text) == nil {
                    problems.append("\(path): '\(text)' is not a date-time")
                }
            }
            if let minimum = schema["minLength"] as? Int, text.count < minimum { problems.append("\(path): too short") }
            if let maximum = schema["maxLength"] as? Int, text.count > maximum { problems.append("\(path): too long") }
        case .int(let number):
            if let minimum = schema["minimum"] as? Int, number < minimum {
                problems.append("\(path): \(number) is below \(minimum)")
            }
            if let maximum = schema["maximum"] as? Int, number > maximum {
                problems.append("\(path): \(number) is above \(maximum)")
            }
        case .object(let object):
            let properties = schema["properties"] as? [String: Any] ?? [:]
            for name in schema["required"] as? [String] ?? [] where object[name] == nil {
                problems.append("\(path): required '\(name)' is missing")
            }
            for (name, child) in object {
                if let property = properties[name] {
                    validate(child, against: property, at: "\(path).\(name)", problems: &problems)
                } else if let additional = schema["additionalProperties"] {
                    if let allowed = additional as? Bool {
                        if !allowed { problems.append("\(path): '\(name)' is not in the schema") }
                    } else {
                        validate(child, against: additional, at: "\(path).\(name)", problems: &problems)
                    }
                } else if !properties.isEmpty {
                    problems.append("\(path): '\(name)' is not in the schema")
                }
            }
        case .array(let array):
            if let items = schema["items"] {
                for (index, element) in array.enumerated() {
                    validate(element, against: items, at: "\(path)[\(index)]", problems: &problems)
                }
            }
        default: break
        }
    }

    static func matches(_ value: JSONValue, type: String) -> Bool {
        switch (type, value) {
        case ("null", .null), ("string", .string), ("boolean", .bool), ("integer", .int), ("number", .int),
            ("number", .double), ("object", .object), ("array", .array):
            return true
        default: return false
        }
    }
}

struct OpenAPIError: Error, CustomStringConvertible {
    var problems: [String]
    var description: String { problems.joined(separator: "\n") }
}
