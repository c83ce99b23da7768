import Domain
import Foundation
import NIOCore
import Testing
import WireCodec

@Suite("Unknown fields")
struct UnknownFieldsTests {
    struct Line: Codable, Equatable {
        var name: String
        var price: Int64?

        enum CodingKeys: String, CodingKey {
            case name
            case price = "unit_price_gross"
        }
    }

    /// Read by hand, as a type that reads only some keys in some cases would.
    struct Sale: Decodable, Equatable {
        var id: OrderID
        var at: Date
        var lines: [Line]
        var labels: [String: Line]
        var note: Line?
        var kind: String?

        enum CodingKeys: String, CodingKey {
            case id, at, lines, labels, note, kind
        }

        init(id: OrderID, at: Date, lines: [Line], labels: [String: Line], note: Line?, kind: String?) {
            (self.id, self.at, self.lines, self.labels, self.note, self.kind) = (id, at, lines, labels, note, kind)
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            id = try container.decode(OrderID.self, forKey: .id)
            at = try container.decode(Date.self, forKey: .at)
            lines = try container.decode([Line].self, forKey: .lines)
            labels = try container.decodeIfPresent([String: Line].self, forKey: .labels) ?? [:]
            note = try container.decodeIfPresent(Line.self, forKey: .note)
            // `kind` is known, though read only for a sale with a note.
            kind = note == nil ? nil : try container.decodeIfPresent(String.self, forKey: .kind)
        }
    }

    func decode<Value: Decodable>(_ type: Value.Type, _ json: String, alsoKnown: Set<String> = []) throws -> (
        value: Value, unknown: [String]
    ) {
        try UnknownFields.decode(type, from: ByteBuffer(string: json), alsoKnown: alsoKnown)
    }

    @Test("the value is what WireJSON decodes, and nothing is unknown in a body of known fields")
    func knownBody() throws {
        let json = """
            {"id":"0f8fad5b-d9cb-469f-a165-70867728950e","at":"2026-12-07T05:30:00.250Z",
             "lines":[{"name":"Screen","unit_price_gross":11800}],"labels":{"any key":{"name":"x"}},
             "note":{"name":"n","unit_price_gross":null},"kind":"repair"}
            """
        let (value, unknown) = try decode(Sale.self, json)
        #expect(unknown.isEmpty)
        #expect(value == (try WireJSON.decode(Sale.self, from: ByteBuffer(string: json))))
        #expect(value.at == Date(timeIntervalSince1970: 1_796_621_400.25))
    }

    @Test("unknown fields are named by path, at the top, in objects, in arrays and in dictionaries' values")
    func unknownByPath() throws {
        let json = """
            {"id":"0f8fad5b-d9cb-469f-a165-70867728950e","at":"2026-12-07T05:30:00Z","price_inc_vat":true,
             "lines":[{"name":"a"},{"name":"Screen","unit_price":11800}],
             "labels":{"k":{"name":"x","colour":"red"}},"note":{"name":"n","extra":{"deep":1}}}
            """
        let (_, unknown) = try decode(Sale.self, json)
        #expect(Set(unknown) == ["price_inc_vat", "lines[1].unit_price", "labels.k.colour", "note.extra"])
    }

    @Test("a known field read only in some cases is not unknown; alsoKnown adds top-level keys only")
    func conditionalAndAlsoKnown() throws {
        let json = """
            {"id":"0f8fad5b-d9cb-469f-a165-70867728950e","at":"2026-12-07T05:30:00Z","lines":[],
             "kind":"repair","expected_version":3}
            """
        #expect(try decode(Sale.self, json).unknown == ["expected_version"])
        #expect(try decode(Sale.self, json, alsoKnown: ["expected_version"]).unknown.isEmpty)
        let nested = #"{"name":"a","expected_version":1}"#
        #expect(
            try decode([Line].self, "[\(nested)]", alsoKnown: ["expected_version"]).unknown == ["[0].expected_version"])
    }

    @Test("a body that fails to decode fails as Foundation says, with the unknown fields met before")
    func failures() throws {
        let json = #"{"id":"0f8fad5b-d9cb-469f-a165-70867728950e","typo":1,"lines":[]}"#
        do {
            _ = try decode(Sale.self, json)
            Issue.record("decoded without `at`")
        } catch let failure as UnknownFields.Failure {
            guard case .keyNotFound(let key, _)? = failure.error as? DecodingError else {
                Issue.record("\(failure.error)")
                return
            }
            #expect(key.stringValue == "at")
            #expect(failure.unknown == ["typo"])
        }
        #expect(throws: UnknownFields.Failure.self) { try decode(Line.self, "not json") }
        #expect(throws: UnknownFields.Failure.self) { try decode(Line.self, #"{"name":3}"#) }
    }

    @Test("a real contract: the seed's order line names both of its own spellings")
    func orderItemDraft() throws {
        let (value, unknown) = try decode(
            OrderItemDraft.self,
            #"{"type":"repair","description":"Screen","unit_price":11800,"price_inc_vat":true}"#)
        #expect(Set(unknown) == ["unit_price", "price_inc_vat"])
        #expect(value.type == .repair && value.unitPriceGross == nil)
    }
}
