import Foundation
import JSON
import NIOCore
import Testing

/// The hand-written JSON, checked against Foundation's coders on the same values.
@Suite("JSON scanner")
struct JSONScannerTests {
    static let valid = [
        #"{"a":[1,-2,3.5,-0.25E-2,true,false,null],"b":{"c":"d\"e\\f\/g\b\f\n\r\t"},"é":"\u00e9\ud83d\ude9a"}"#,
        " [ ] ", "{}", "\"\"", "0", "-9007199254740993", "123456789012345678901234567890", "1e3", "[[[[]]]]", "1e-400",
        "1e308",
    ]
    static let invalid = [
        "", "{", "[1,]", "{\"a\" 1}", "tru", "\"\\x\"", "\"\u{01}\"", "1.2.3", "-", "[1] 2", "\"\\u12g4\"",
        "{\"a\":1}}", "{'a':1}", "[01x]", "nul", "{\"a\":}", "0000", "[-01]", "{\"a\":00.5}", "\"\\ud83d\"",
        "\"\\ud83d\\u0041\"", "\"\\ude9a\"", "1e400", "-1.5e309", "[9999999999999.222e2222]",
        "1" + String(repeating: "0", count: 400),
    ]

    /// What Foundation's reader lets through although RFC 8259 does not.
    static let foundationTolerates: Set<String> = ["[1,]"]

    @Test("accepts what JSONSerialization accepts, and nothing RFC 8259 forbids")
    func validatesLikeFoundation() throws {
        for text in Self.valid + Self.invalid {
            let foundation =
                (try? JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])) != nil
            let scanner = Array(text.utf8).withUnsafeBytes { (try? JSONScanner.validate($0)) != nil }
            #expect(scanner == Self.valid.contains(text), "\(text)")
            #expect(foundation == (scanner || Self.foundationTolerates.contains(text)), "\(text)")
        }
        let deep = String(repeating: "[", count: 100) + String(repeating: "]", count: 100)
        #expect(throws: JSONScanner.Failure.self) {
            try Array(deep.utf8).withUnsafeBytes { try JSONScanner.validate($0) }
        }
    }

    @Test("refuses strings that are not UTF-8, as Foundation does (found by make fuzz-wire)")
    func refusesInvalidUTF8() throws {
        let invalid: [[UInt8]] = [
            [0x22, 0x9F, 0x22],  // a continuation byte alone
            [0x22, 0xC3, 0x22],  // a lead byte cut short
            [0x22, 0xC0, 0xAF, 0x22],  // an overlong "/"
            [0x22, 0xED, 0xA0, 0x80, 0x22],  // a surrogate
            Array(#"{"a":"ok","b":""#.utf8) + [0xFF] + Array(#""}"#.utf8),
        ]
        for bytes in invalid {
            #expect((try? JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])) == nil)
            #expect(throws: JSONScanner.Failure.self, "\(bytes)") {
                try bytes.withUnsafeBytes { try JSONScanner.validate($0) }
            }
        }
        try Array("\"é🚚\"".utf8).withUnsafeBytes { try JSONScanner.validate($0) }
    }

    @Test("reads strings, integers and booleans as JSONDecoder reads them")
    func readsLikeFoundation() throws {
        struct Fields: Codable, Equatable {
            var text: String
            var number: Int64
            var flag: Bool
        }
        let samples = [
            Fields(text: "plain", number: 0, flag: true),
            Fields(text: "quote \" backslash \\ slash / newline \n tab \t bell \u{07} é 🚚", number: -42, flag: false),
            Fields(text: "", number: Int64.max, flag: true),
            Fields(text: "\u{1F}\u{0}", number: Int64.min + 1, flag: false),
        ]
        for sample in samples {
            let bytes = Array(try JSONEncoder().encode(sample))
            var read = Fields(text: "", number: 0, flag: false)
            try bytes.withUnsafeBytes { raw in
                var scanner = JSONScanner(raw)
                try scanner.readObject { scanner, key in
                    switch key {
                    case "text": read.text = try scanner.readString()
                    case "number": read.number = try scanner.readInteger()
                    case "flag": read.flag = try scanner.readBool()
                    default: _ = try scanner.skipValue()
                    }
                }
                try scanner.expectEnd()
            }
            #expect(read == sample)
            #expect(try JSONDecoder().decode(Fields.self, from: Data(bytes)) == read)
        }
    }

    @Test("reads no string with a surrogate out of its pair (found by make fuzz-wire)")
    func refusesLoneSurrogates() throws {
        for text in [#""\ud83d""#, #""a\ud83d\u00e9""#, #""\ude9a""#] {
            #expect(throws: JSONScanner.Failure.self, "\(text)") {
                try Array(text.utf8).withUnsafeBytes { raw in
                    var scanner = JSONScanner(raw)
                    _ = try scanner.readString()
                }
            }
        }
    }

    @Test("reads no integer that JSON forbids (a leading zero was found by make fuzz-wire)")
    func refusesBadIntegers() throws {
        for text in ["00", "-01", "0123", "1.5", "2e3", "-", "9223372036854775808"] {
            #expect(throws: JSONScanner.Failure.self, "\(text)") {
                try Array(text.utf8).withUnsafeBytes { raw in
                    var scanner = JSONScanner(raw)
                    _ = try scanner.readInteger()
                }
            }
        }
        for (text, value) in [("0", Int64(0)), ("-0", 0), ("10", 10), ("-9223372036854775807", -Int64.max)] {
            let read = try Array(text.utf8).withUnsafeBytes { raw in
                var scanner = JSONScanner(raw)
                return try scanner.readInteger()
            }
            #expect(read == value)
        }
    }

    @Test("skipping a value reports the bytes it took")
    func skipsValues() throws {
        let text = #"{"skip":{"deep":[1,"two",{"three":null}]},"keep":7}"#
        var skipped = ""
        try Array(text.utf8).withUnsafeBytes { raw in
            var scanner = JSONScanner(raw)
            try scanner.readObject { scanner, key in
                let range = try scanner.skipValue()
                if key == "skip" { skipped = String(decoding: raw[range], as: UTF8.self) }
            }
        }
        #expect(skipped == #"{"deep":[1,"two",{"three":null}]}"#)
    }
}

@Suite("JSON string writer")
struct JSONStringWriterTests {
    @Test("writes every string so that JSONDecoder reads it back the same")
    func roundTrips() throws {
        var strings = [
            "", "plain", "quote \" backslash \\ slash /", "é 🚚 \u{2028}", String(repeating: "x", count: 5000),
        ]
        strings += (0..<0x20).map { String(UnicodeScalar(UInt8($0))) + "after" }
        for string in strings {
            var buffer = ByteBuffer()
            JSONStringWriter.write(string, into: &buffer)
            let data = Data(buffer.readableBytesView)
            #expect(try JSONDecoder().decode(String.self, from: data) == string)
        }
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
        for text in JSONScannerTests.invalid {
            #expect(throws: JSONScanner.Failure.self, "\(text)") { try EventPayload(validating: Array(text.utf8)) }
        }
    }

    @Test("a payload mentions exactly the byte sequences its text holds")
    func mentions() throws {
        let payload = try EventPayload(encoding: Sample(name: "Zoë \"reservation_ids\" ✓", at: Date()))
        for text in ["\"name\"", "reservation_ids", "Zoë", "✓\"", "{", ""] {
            #expect(payload.mentions(text), "\(text)")
        }
        for text in ["\"reservation_ids\"", "Zoe", "\"names\"", payload.json + " "] {
            #expect(!payload.mentions(text), "\(text)")
        }
        #expect(!EventPayload(encodedJSON: "").mentions("a") && EventPayload(encodedJSON: "").mentions(""))
    }

    @Test("an encoded value decodes back, its keys sorted")
    func encoding() throws {
        let sample = Sample(name: "Ada", at: Date(timeIntervalSince1970: 1_800_000_000.25))
        let payload = try EventPayload(encoding: sample)
        #expect(payload.json == #"{"at":"2027-01-15T08:00:00.250Z","name":"Ada"}"#)
        #expect(try payload.decode(as: Sample.self) == sample)
    }
}
