import Domain
import Foundation
import Storage
import Testing

@testable import Notifications

@Suite("Notification payload reading")
struct NotificationPayloadTests {
    private func order(courier: UserID?, reason: String?) throws -> Order {
        let draft = try OrderDraft(
            fulfillment: .delivery, recipientFirstName: "Dana", recipientLastName: "Levi", phone: "050 1234567",
            street: "Herzl \"5\"", buildingNo: "1", boxesCount: 9
        ).validated()
        var order = Order(
            id: OrderID(), number: 42, storeID: StoreID(), status: .cancelled, version: 3, draft: draft,
            pickupAddress: "Store", quote: DeliveryQuote(fee: 7000, multiplier: 2), currency: .ils,
            createdBy: UserID(), createdAt: Date())
        order.courierID = courier
        order.cancellationReason = reason
        return order
    }

    @Test("the facts are read from an order's stored JSON, alone or inside a change event's payload")
    func facts() throws {
        for (courier, reason) in [(UserID(), "closed" as String?), (nil, nil)] {
            let order = try order(courier: courier, reason: reason)
            let document = try StoredDocument.text(order)
            let nested = EventPayload(members: [
                "change": try .object(["change": .string("cancel")]), "order": EventPayload(encodedJSON: document),
            ])
            for facts in [
                try OrderFacts.read(EventPayload(encodedJSON: document), nested: false),
                try OrderFacts.read(nested, nested: true),
            ] {
                #expect(facts.id == order.id && facts.number == 42 && facts.storeID == order.storeID)
                #expect(facts.fulfillment == .delivery && facts.status == .cancelled && facts.boxesCount == 9)
                #expect(facts.deliveryAddress == order.deliveryAddress && facts.courierID == courier)
                #expect(facts.createdBy == order.createdBy && facts.cancellationReason == reason)
            }
        }
    }

    @Test("a payload without what is needed, or with it malformed, is an error naming the field")
    func malformed() throws {
        let document = try StoredDocument.text(try order(courier: nil, reason: nil))
        let broken = [
            ("store_id", document.replacingOccurrences(of: "\"store_id\"", with: "\"shop_id\"")),
            ("status", document.replacingOccurrences(of: "\"cancelled\"", with: "\"lost\"")),
            ("courier_id", document.replacingOccurrences(of: "\"created_by\"", with: "\"courier_id\":\"x\",\"by\"")),
        ]
        for (field, text) in broken {
            #expect(throws: MalformedPayload(field: field)) {
                try OrderFacts.read(EventPayload(encodedJSON: text), nested: false)
            }
        }
        #expect(throws: MalformedPayload(field: "order")) {
            try OrderFacts.read(EventPayload(encodedJSON: #"{"change":{}}"#), nested: true)
        }
    }

    @Test("a stored message is what JSONEncoder would write")
    func message() throws {
        let message = NotificationMessage(
            type: "order.created", title: "New order #1", body: "Delivery to \"A\" \\ B",
            data: ["order_id": "o", "store_id": "s"], createdAt: Date(timeIntervalSince1970: 1_800_000_000.123),
            readAt: Date(timeIntervalSince1970: 1_800_000_001))
        let read = try StoredDocument.decode(NotificationMessage.self, from: try message.json())
        #expect(read.type == message.type && read.title == message.title && read.body == message.body)
        #expect(read.data == message.data && read.createdAt == message.createdAt && read.readAt == message.readAt)
    }
}
