import Domain
import Foundation
import Testing

@Suite("JSON values")
struct JSONValueTests {
    @Test("jsonText writes what JSONDecoder reads back as the same value")
    func roundTrip() throws {
        let value = JSONValue.object([
            "text": .string("quote \" backslash \\ newline \n tab \t bell \u{07} é 🚚"),
            "int": .int(-9_007_199_254_740_993),
            "double": .double(12.5),
            "tiny": .double(1e-7),
            "flags": .array([.bool(true), .bool(false), .null]),
            "nested": .object(["empty": .array([]), "none": .object([:])]),
        ])
        let text = try value.jsonText()
        #expect(try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)) == value)
        #expect(try JSONValue.string("\u{01}").jsonText() == "\"\\u0001\"")
    }

    @Test("a non-finite number is refused")
    func nonFinite() {
        #expect(throws: JSONValueError.nonFiniteNumber) { try JSONValue.double(.infinity).jsonText() }
    }
}

@Suite("JSON parsing")
struct JSONParsingTests {
    @Test("parses what JSONDecoder parses, to the same value")
    func agreesWithJSONDecoder() throws {
        let texts = [
            #"{"a":[1,-2,3.5,-0.25E-2,true,false,null],"b":{"c":"d\"e\\f\/g\b\f\n\r\t"},"é":"\u00e9\ud83d\ude9a"}"#,
            " [ ] ", "{}", "\"\"", "0", "-9007199254740993", "123456789012345678901234567890",
        ]
        for text in texts {
            let expected = try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
            #expect(try JSONValue(parsing: Array(text.utf8)) == expected, "\(text)")
        }
        // As documented: an exponent makes a double, even of a whole number.
        #expect(try JSONValue(parsing: Array("1e3".utf8)) == .double(1000))
    }

    @Test("refuses what is not JSON, saying where")
    func refuses() {
        for text in [
            "", "{", "[1,]", "{\"a\" 1}", "tru", "\"\\x\"", "\"\u{01}\"", "1.2.3", "-", "[1] 2", "\"\\ud800\"",
        ] {
            #expect(throws: JSONValueError.self, "\(text)") { try JSONValue(parsing: Array(text.utf8)) }
        }
        let deep = String(repeating: "[", count: 100) + String(repeating: "]", count: 100)
        #expect(throws: JSONValueError.self) { try JSONValue(parsing: Array(deep.utf8)) }
    }
}

@Suite("Event payloads")
struct EventPayloadTests {
    private struct Sample: Codable, Equatable {
        var name: String
        var at: Date
    }

    @Test("text from outside is taken only when it is one JSON value")
    func validating() throws {
        for text in [#"{"a":[1,-2.5e3,true,null],"b":"\"\\\/\u00e9"}"#, " [] ", "\"\"", "0"] {
            #expect(try EventPayload(validating: Array(text.utf8)).json == text)
        }
        for text in [
            "", "{", "[1,]", "{\"a\" 1}", "tru", "\"\\x\"", "\"\u{01}\"", "1.2.3", "-", "[1] 2", "\"\\u12g4\"",
            "{\"a\":1}}",
        ] {
            #expect(throws: JSONScanner.Failure.self, "\(text)") { try EventPayload(validating: Array(text.utf8)) }
        }
        let deep = String(repeating: "[", count: 100) + String(repeating: "]", count: 100)
        #expect(throws: JSONScanner.Failure.self) { try EventPayload(validating: Array(deep.utf8)) }
    }

    @Test("an encoded value decodes back; members keep their text, keys sorted")
    func encodingAndMembers() throws {
        let sample = Sample(name: "Ada", at: Date(timeIntervalSince1970: 1_800_000_000.25))
        let payload = try EventPayload(encoding: sample)
        #expect(try payload.decode(as: Sample.self) == sample)
        let combined = EventPayload(members: ["z": .null, "a": payload])
        #expect(combined.json == #"{"a":"# + payload.json + #","z":null}"#)
        #expect(try combined.value() == .object(["a": try payload.value(), "z": .null]))
        #expect(try EventPayload.object(["n": .int(1)]).json == #"{"n":1}"#)
    }
}

@Suite("Encoded JSON")
struct EncodedJSONTests {
    @Test("goes through any encoder as the value it holds, and reads back any JSON value")
    func codable() throws {
        let encoded = EncodedJSON(#"{"b":[1,"two",null],"a":{"c":true}}"#)
        let wrapped = try JSONEncoder().encode(["inner": encoded])
        let value = try JSONDecoder().decode(JSONValue.self, from: wrapped)
        #expect(
            value
                == .object([
                    "inner": .object(["a": .object(["c": .bool(true)]), "b": .array([.int(1), .string("two"), .null])])
                ]))
        let back = try JSONDecoder().decode(EncodedJSON.self, from: Data(encoded.text.utf8))
        #expect(try JSONValue(parsing: back.text.utf8) == JSONValue(parsing: encoded.text.utf8))
    }
}
