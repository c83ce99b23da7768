import Domain
import Foundation
import JSON
import Testing

/// The order's hand-written JSON against Foundation's, byte for byte, as documents store it
/// (slashes escaped) and as Wire carries it (not).
@Suite("The order's JSON")
struct OrderJSONTests {
    static let wireEncoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = RFC3339.encodingStrategy
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    /// Every field of an order and of two items, with values to vary.
    static func fields(text: String, number: Int64, time: String) -> [String: Any] {
        let item: [String: Any] = [
            "id": UUID().uuidString.lowercased(), "type": "repair", "product_id": UUID().uuidString.lowercased(),
            "device_id": text, "description": text, "quantity": 3, "unit_price_gross": number,
            "vat_rate_bp": 1800, "unit_price_net": number / 2, "line_gross": number,
            "line_net": number == .min ? 0 : -number,
            "line_vat": 0, "is_warranty_item": true, "warranty_notes": text,
        ]
        var plain = item
        for key in ["product_id", "device_id", "warranty_notes"] { plain[key] = nil }
        plain["is_warranty_item"] = false
        plain["id"] = UUID().uuidString.lowercased()
        return [
            "id": UUID().uuidString.lowercased(), "number": number, "store_id": UUID().uuidString.lowercased(),
            "fulfillment": "delivery", "status": "out_for_delivery", "version": 7, "recipient_first_name": text,
            "recipient_last_name": text, "phone": text, "street": text, "building_no": text, "floor": text,
            "apartment": text, "city": text, "delivery_notes": text, "pickup_address": text,
            "delivery_address": text, "boxes_count": 9, "boxes_multiplier": 2, "delivery_fee": number,
            "currency": "ILS", "customer_name": text, "due_at": time, "notes": text,
            "courier_id": UUID().uuidString.lowercased(), "claimed_at": time, "delivered_at": time,
            "cancellation_reason": text, "archived_at": time, "items": [item, plain], "items_net": number,
            "items_vat": number,
            "items_gross": number, "total": number, "created_by": UUID().uuidString.lowercased(),
            "created_at": time, "updated_at": time, "allowed_actions": ["pick_up", "release"], "can_edit": false,
            "paid_amount": number == .min ? 0 : abs(number), "payment_status": "partially_paid",
        ]
    }

    static func order(_ fields: [String: Any]) throws -> Order {
        try RFC3339.decoder.decode(Order.self, from: JSONSerialization.data(withJSONObject: fields))
    }

    static func expectSame<Value: Encodable & JSONWritable>(_ value: Value) throws {
        let stored = try RFC3339.sortedKeysEncoder.encode(value)
        #expect(
            String(decoding: value.jsonBytes(escapingSlashes: true), as: UTF8.self)
                == String(decoding: stored, as: UTF8.self))
        let wire = try wireEncoder.encode(value)
        #expect(
            String(decoding: value.jsonBytes(escapingSlashes: false), as: UTF8.self)
                == String(decoding: wire, as: UTF8.self))
    }

    static let texts = [
        "Dana", "", "a/b\\c\"d'e", String((0..<128).map { Character(Unicode.Scalar(UInt8($0))) }),
        "📦 שלום \u{2028}\u{2029} e\u{301} \u{FEFF}", "</script>", "tab\there\nnew\r\u{8}\u{C}\u{1F}\u{7F}",
    ]

    @Test("every field present, with text that needs escaping and numbers at their ends")
    func everyField() throws {
        for text in Self.texts {
            for number in [0, 1, -1, 3500, Int64.max, Int64.min] {
                for time in ["2026-11-24T19:23:08Z", "2026-11-24T19:23:08.120Z", "1970-01-01T00:00:00.001Z"] {
                    try Self.expectSame(try Self.order(Self.fields(text: text, number: number, time: time)))
                }
            }
        }
    }

    @Test("optional fields left out, as a stored order has them")
    func optionalFields() throws {
        var fields = Self.fields(text: "x", number: 5, time: "2026-11-24T19:23:08Z")
        for key in [
            "recipient_first_name", "recipient_last_name", "phone", "street", "building_no", "floor", "apartment",
            "city", "delivery_notes", "pickup_address", "delivery_address", "customer_name", "due_at", "notes",
            "courier_id", "claimed_at", "delivered_at", "cancellation_reason", "allowed_actions", "can_edit",
            "paid_amount",
            "payment_status",
        ] {
            fields[key] = nil
        }
        fields["items"] = []
        try Self.expectSame(try Self.order(fields))
        fields["allowed_actions"] = []
        fields["can_edit"] = true
        try Self.expectSame(try Self.order(fields))
    }

    @Test("random text from across Unicode")
    func randomText() throws {
        var generator = SystemRandomNumberGenerator()
        let ranges: [ClosedRange<UInt32>] = [
            0...0x7F, 0x80...0x7FF, 0x800...0xD7FF, 0xE000...0xFFFF, 0x10000...0x10FFFF,
        ]
        for _ in 0..<200 {
            let text = String(
                String.UnicodeScalarView(
                    (0..<Int.random(in: 0...24, using: &generator)).compactMap { _ in
                        Unicode.Scalar(UInt32.random(in: ranges.randomElement(using: &generator)!, using: &generator))
                    }))
            try Self.expectSame(
                try Self.order(
                    Self.fields(text: text, number: Int64.random(in: .min ... .max), time: "2026-11-24T19:23:08.999Z")))
        }
    }

    @Test("history entries, with and without free-form details")
    func historyEntries() throws {
        let at = try #require(RFC3339.parse("2026-11-24T19:23:08.120Z"))
        for text in Self.texts {
            let details: [String: JSONValue] = [
                "reason": .string(text), "fields": .array([.string("phone"), .string("a/b")]), "n": .int(-3),
                "share": .double(0.25), "ok": .bool(true), "none": .null, "item": .object(["id": .string(text)]),
            ]
            for details in [nil, [:], details] {
                try Self.expectSame(
                    OrderHistoryEntry(
                        seq: 3, orderID: OrderID(), at: at, actorID: UserID(), actorRole: .courier, change: text,
                        from: .ready, to: .outForDelivery, details: details))
            }
        }
        try Self.expectSame(
            OrderHistoryEntry(
                seq: 1, orderID: OrderID(), at: at, actorID: UserID(), actorRole: .staff, change: "created"))
    }

    @Test("drafts, as the idempotency record's request hash reads them")
    func drafts() throws {
        try Self.expectSame(OrderDraft())
        for text in Self.texts {
            try Self.expectSame(
                OrderDraft(
                    id: OrderID(), storeID: StoreID(), fulfillment: .pickup, recipientFirstName: text,
                    recipientLastName: text, phone: text, street: text, buildingNo: text, floor: text, apartment: text,
                    city: text, deliveryNotes: text, boxesCount: -4, customerName: text,
                    dueAt: RFC3339.parse("2026-11-24T19:23:08Z"), notes: text))
        }
    }
}
