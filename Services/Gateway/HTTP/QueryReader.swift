import Contracts
import Domain
import Foundation
import Hummingbird

/// Reads query parameters, collecting every bad one.
struct QueryReader {
    let parameters: [String: String]
    var problems = FieldProblems()

    init(_ request: Request) { self.parameters = Self.parameters(of: request.uri.query ?? "") }

    /// The query's parameters as browsers write them (`application/x-www-form-urlencoded`): a
    /// `+` is a space and `%2B` a plus, so `q=yael+mizrahi` from `URLSearchParams` is the same
    /// search as `q=yael%20mizrahi`. A name given twice keeps its first value; text that is not
    /// valid percent-encoding is kept as written.
    static func parameters(of query: String) -> [String: String] {
        var parameters: [String: String] = [:]
        for pair in query.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = formDecoded(parts[0])
            guard !name.isEmpty, parameters[name] == nil else { continue }
            parameters[name] = parts.count > 1 ? formDecoded(parts[1]) : ""
        }
        return parameters
    }

    private static func formDecoded(_ text: Substring) -> String {
        let spaced = text.replacingOccurrences(of: "+", with: " ")
        return spaced.removingPercentEncoding ?? spaced
    }

    func text(_ name: String) -> String? { parameters[name] }

    mutating func int(_ name: String, in range: ClosedRange<Int>) -> Int? {
        guard let text = parameters[name] else { return nil }
        guard let value = Int(text), range.contains(value) else {
            problems.add(name, "must be an integer from \(range.lowerBound) to \(range.upperBound)")
            return nil
        }
        return value
    }

    mutating func date(_ name: String) -> Date? {
        guard let text = parameters[name] else { return nil }
        guard let date = RFC3339.parse(text) else {
            problems.add(name, "must be an RFC 3339 time such as 2026-11-22T09:00:00Z")
            return nil
        }
        return date
    }

    mutating func bool(_ name: String) -> Bool? {
        guard let text = parameters[name] else { return nil }
        guard let value = Bool(text) else {
            problems.add(name, "must be true or false")
            return nil
        }
        return value
    }

    mutating func id<Tag>(_ name: String, as: Identifier<Tag>.Type) -> Identifier<Tag>? {
        guard let text = parameters[name] else { return nil }
        guard let id = Identifier<Tag>(text) else {
            problems.add(name, "must be a UUID")
            return nil
        }
        return id
    }

    mutating func choices<Value: RawRepresentable & CaseIterable>(_ name: String, as: Value.Type) -> [Value]?
    where Value.RawValue == String {
        guard let text = parameters[name] else { return nil }
        var values: [Value] = []
        for part in text.split(separator: ",") {
            guard let value = Value(rawValue: String(part)) else {
                problems.add(name, "must be one or more of " + Value.allCases.map(\.rawValue).joined(separator: ", "))
                return nil
            }
            values.append(value)
        }
        return values
    }

    /// A place written `lat,lng` in degrees (`32.0853,34.7818`); its ranges are the service's to
    /// check.
    mutating func place(_ name: String) -> GeoPoint? {
        guard let text = parameters[name] else { return nil }
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count == 2, let lat = Double(String(parts[0]).trimmingWhitespace()),
            let lng = Double(String(parts[1]).trimmingWhitespace())
        else {
            problems.add(name, "must be two numbers, latitude and longitude, as lat,lng")
            return nil
        }
        return GeoPoint(lat: lat, lng: lng)
    }

    /// A text of at most `maximumLength` characters.
    mutating func text(_ name: String, maximumLength: Int) -> String? {
        guard let text = parameters[name] else { return nil }
        guard text.count <= maximumLength else {
            problems.add(name, "must be at most \(maximumLength) characters")
            return nil
        }
        return text
    }

    func check() throws(OrderlyError) { try problems.check() }
}

extension QueryReader {
    /// The page a list asks for: `limit` (1–200), `cursor` and `count`.
    mutating func page() -> PageRequest {
        PageRequest(limit: int("limit", in: 1...PageRequest.maximumLimit), cursor: text("cursor"), count: bool("count"))
    }

    /// The page of a list that takes nothing else.
    static func page(_ request: Request) throws(OrderlyError) -> PageRequest {
        var query = QueryReader(request)
        let page = query.page()
        try query.check()
        return page
    }
}
