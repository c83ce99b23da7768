import Domain
import Foundation
import Storage
import TestSupport
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

@Suite("Notifications schema")
struct NotificationsSchemaTests {
    @Test(
        "rebuilding the table without the index on id keeps every notification",
        arguments: [
            Database.Kind.sqlite, .postgres,
        ])
    func rebuild(kind: Database.Kind) async throws {
        try await TestDatabase.with(kind) { test in
            let database = test.database
            try await database.migrate(scope: "notifications", [NotificationsSchema.migrations[0]])
            try await database.transaction { transaction in
                for seq in 1...3 {
                    try await transaction.sql.raw(
                        """
                        INSERT INTO notifications (seq, id, user_id, created_at, doc)
                        VALUES (\(bind: seq), \(bind: "n\(seq)"), \(bind: "u\(seq % 2)"), 0, '{}')
                        """
                    ).run()
                }
            }
            #expect(try await database.migrate(scope: "notifications", NotificationsSchema.migrations) == [2])
            let rows = try await database.read { sql in
                try await sql.raw("SELECT seq, id FROM notifications WHERE user_id = 'u1' ORDER BY seq").all()
            }
            #expect(try rows.map { try $0.decode(column: "id", as: String.self) } == ["n1", "n3"])
            try await database.transaction { transaction in
                try await transaction.sql.raw(
                    "INSERT INTO notifications (seq, id, user_id, created_at, doc) VALUES (4, 'n1', 'u1', 0, '{}')"
                ).run()
            }
        }
    }
}
