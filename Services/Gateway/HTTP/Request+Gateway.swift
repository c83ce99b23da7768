import Domain
import Foundation
import HTTPTypes
import Hummingbird

extension Request {
    /// The W3C `traceparent` header when it is well formed (`00-<32 hex>-<16 hex>-<2 hex>`).
    var traceParent: String? {
        guard let text = headers[.traceparent], text.utf8.count == 55 else { return nil }
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.map(\.count) == [2, 32, 16, 2],
            parts.allSatisfy({ $0.allSatisfy { $0.isHexDigit && !$0.isUppercase } })
        else { return nil }
        return text
    }

    /// The `version` an `If-Match` header names: `"3"`, `W/"3"` or `3`, at most 18 digits (the
    /// document's pattern), or `%223%22`, as a client swift-openapi-generator made sends the ETag
    /// it read (its runtime percent-encodes header values); anything else is a 400.
    func expectedVersion() throws(OrderlyError) -> Int64? {
        guard let text = headers[.ifMatch] else { return nil }
        var digits = Substring(text)
        if digits.hasPrefix("W/\"") { digits = digits.dropFirst(2) }
        if digits.count >= 2, digits.first == "\"", digits.last == "\"" { digits = digits.dropFirst().dropLast() }
        if digits.count >= 6, digits.hasPrefix("%22"), digits.hasSuffix("%22") {
            digits = digits.dropFirst(3).dropLast(3)
        }
        guard let version = Int64(digits: digits) else {
            throw OrderlyError.invalidFields(["If-Match": "must be the ETag of the resource, such as \"3\""])
        }
        return version
    }

    /// The id in the path parameter `name`; a malformed one is a 404, as no such resource exists.
    func pathID<Tag>(_ name: String, _ context: GatewayContext, as: Identifier<Tag>.Type) throws(OrderlyError)
        -> Identifier<Tag>
    {
        guard let text = context.parameters.get(name), let id = Identifier<Tag>(text) else {
            throw OrderlyError(.notFound, "no such resource")
        }
        return id
    }
}
