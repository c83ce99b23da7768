import Domain
import Foundation
import Testing

@Suite("JSON values")
struct JSONValueTests {
    @Test("a value encodes and decodes back as itself")
    func roundTrip() throws {
        let value = JSONValue.object([
            "text": .string("quote \" backslash \\ newline \n tab \t bell \u{07} é 🚚"),
            "int": .int(-9_007_199_254_740_993),
            "double": .double(12.5),
            "flags": .array([.bool(true), .bool(false), .null]),
            "nested": .object(["empty": .array([]), "none": .object([:])]),
        ])
        #expect(try JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(value)) == value)
    }

    @Test("an encodable value becomes the JSON value it encodes to, dates as RFC 3339")
    func encoding() throws {
        struct Sample: Encodable {
            var name = "Ada"
            var count = 3
            var at = Date(timeIntervalSince1970: 1_800_000_000.25)
        }
        #expect(
            try JSONValue(encoding: Sample())
                == .object(["name": .string("Ada"), "count": .int(3), "at": .string("2027-01-15T08:00:00.250Z")]))
    }
}
