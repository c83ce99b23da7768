import Domain
import Foundation
import Testing

@Suite("Error vocabulary")
struct ErrorTests {
    @Test("each code maps to its HTTP status")
    func httpStatuses() {
        let expected: [ErrorCode: Int] = [
            .invalidArgument: 400, .unauthenticated: 401, .permissionDenied: 403, .notFound: 404, .conflict: 409,
            .failedPrecondition: 422, .resourceExhausted: 429, .deadlineExceeded: 504, .unavailable: 503,
            .unimplemented: 501, .internal: 500,
        ]
        #expect(ErrorCode.allCases.count == expected.count)
        for code in ErrorCode.allCases { #expect(code.httpStatus == expected[code]) }
    }

    @Test("codes are spelled in snake_case on the wire")
    func spelling() {
        #expect(ErrorCode.invalidArgument.rawValue == "invalid_argument")
        #expect(ErrorCode.deadlineExceeded.rawValue == "deadline_exceeded")
        #expect(ErrorCode.internal.rawValue == "internal")
    }

    struct Sample: Decodable {
        var name: String
        var boxes: Int
        var address: Address
        struct Address: Decodable { var street: String }
        enum CodingKeys: String, CodingKey {
            case name, boxes = "boxes_count", address
        }
    }

    @Test(
        "a decoding failure names the field and what is wrong",
        arguments: [
            (#"{"boxes_count": 1, "address": {"street": "x"}}"#, "name", "is required"),
            (#"{"name": "a", "boxes_count": "many", "address": {"street": "x"}}"#, "boxes_count", "must be an integer"),
            (#"{"name": null, "boxes_count": 1, "address": {"street": "x"}}"#, "name", "must not be null"),
            (#"{"name": "a", "boxes_count": 1, "address": {}}"#, "address.street", "is required"),
            (#"{"name": "a""#, "body", "is not valid JSON"),
        ])
    func decodingErrors(json: String, field: String, reason: String) throws {
        do {
            _ = try JSONDecoder().decode(Sample.self, from: Data(json.utf8))
            Issue.record("decoding should have failed")
        } catch let error as DecodingError {
            let failure = OrderlyError(decoding: error)
            #expect(failure.code == .invalidArgument)
            #expect(failure.details?[field] == .string(reason))
        }
    }

    @Test("JSON values keep integers exact and round-trip")
    func jsonValues() throws {
        let value = JSONValue.object([
            "n": .int(9_007_199_254_740_993), "f": .double(1.5), "s": .string("x"), "b": .bool(true), "z": .null,
            "a": .array([.int(1), .string("two")]),
        ])
        let decoded = try JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(value))
        #expect(decoded == value)
    }

    @Test("unavailable, out of time and out of capacity are failures of the moment; the rest are of the work")
    func transience() {
        for code in ErrorCode.allCases {
            let expected = [ErrorCode.unavailable, .deadlineExceeded, .resourceExhausted].contains(code)
            #expect(isTransient(OrderlyError(code, "x")) == expected, "\(code)")
        }
        struct Unclassified: Error {}
        #expect(!isTransient(Unclassified()))
        #expect(!isTransient(CancellationError()))
    }
}
