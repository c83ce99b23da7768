import Domain
import Foundation
import Testing

@Suite("Identifiers and principals")
struct IdentifierTests {
    @Test("an identifier encodes as its lower-case UUID string and decodes back")
    func roundTrip() throws {
        let id = OrderID()
        let json = try JSONEncoder().encode(id)
        #expect(String(decoding: json, as: UTF8.self) == "\"\(id.uuid.uuidString.lowercased())\"")
        #expect(try JSONDecoder().decode(OrderID.self, from: json) == id)
    }

    @Test("a string that is not a UUID is refused")
    func refusesGarbage() {
        #expect(OrderID("not-a-uuid") == nil)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(OrderID.self, from: Data("\"x\"".utf8)) }
    }

    @Test("owners, managers and staff are the store roles")
    func storeRoles() {
        #expect(Role.allCases.filter(\.isStoreRole) == [.owner, .manager, .staff])
    }

    @Test("a principal uses snake_case keys")
    func principalKeys() throws {
        let principal = Principal(userID: UserID(), role: .owner, storeID: StoreID())
        let object = try JSONSerialization.jsonObject(with: JSONEncoder().encode(principal)) as? [String: Any]
        #expect(Set(object?.keys.map { $0 } ?? []) == ["user_id", "role", "store_id"])
        let courier = Principal(userID: UserID(), role: .courier, storeID: nil, onDuty: true)
        let courierObject = try JSONSerialization.jsonObject(with: JSONEncoder().encode(courier)) as? [String: Any]
        #expect(courierObject?["on_duty"] as? Bool == true)
        #expect(try JSONDecoder().decode(Principal.self, from: JSONEncoder().encode(courier)) == courier)
        #expect(try JSONDecoder().decode(Principal.self, from: JSONEncoder().encode(principal)) == principal)
    }
}

@Suite("Hex text")
struct HexTextTests {
    @Test("two lower-case digits a byte, high half first")
    func lowercased() {
        #expect(Hex.lowercased([UInt8]()) == "")
        #expect(Hex.lowercased([0x00, 0x0f, 0x10, 0xa5, 0xff]) == "000f10a5ff")
        let all = (0...255).map { UInt8($0) }
        #expect(Hex.lowercased(all) == all.map { String(format: "%02x", $0) }.joined())
    }
}

@Suite("UUID text")
struct UUIDTextTests {
    @Test("written and read exactly as Foundation writes and reads them")
    func agreesWithFoundation() {
        for _ in 0..<1000 {
            let uuid = UUID()
            #expect(uuid.lowercasedText == uuid.uuidString.lowercased())
            #expect(UUID(text: uuid.uuidString) == uuid)
            #expect(UUID(text: uuid.lowercasedText) == uuid)
        }
    }

    @Test("anything but the 36-character form is refused")
    func refuses() {
        let good = "3f0c9a1e-2b4d-4c6e-8f10-123456789abc"
        #expect(UUID(text: good) != nil)
        for text in [
            "", String(good.dropLast()), good + "0", good.replacingOccurrences(of: "-", with: ""),
            "3f0c9a1e-2b4d-4c6e-8f10-123456789abg", "3f0c9a1e+2b4d-4c6e-8f10-123456789abc",
            "3f0c9a1e-2b4d-4c6e-8f10-123456789ab-", "3f0c9a1e-2b4d-4c6e-8f1-0123456789abc", "é" + good.dropFirst(2),
        ] {
            #expect(UUID(text: text) == nil, "\(text)")
        }
    }

    @Test("random ones are version 4, variant 1, and do not repeat")
    func random() {
        var seen = Set<UUID>()
        for _ in 0..<10_000 {
            let uuid = UUID.random()
            let text = uuid.lowercasedText
            #expect(Array(text)[14] == "4")
            #expect("89ab".contains(Array(text)[19]))
            seen.insert(uuid)
        }
        #expect(seen.count == 10_000)
    }

    @Test("time-ordered ones are version 7, variant 1, carry their millisecond, sort by it, and do not repeat")
    func timeOrdered() {
        let date = Date(timeIntervalSince1970: 1_763_856_000.5)
        let uuid = UUID.timeOrdered(at: date)
        let text = uuid.lowercasedText
        // 1_763_856_000_500 ms = 0x019a_ae02_a5f4.
        #expect(text.hasPrefix("019aae02-a5f4-7"))
        #expect("89ab".contains(Array(text)[19]))
        #expect(UUID.timeOrdered(at: date.addingTimeInterval(0.001)).lowercasedText > text)
        #expect(UUID.timeOrdered(at: date.addingTimeInterval(-0.001)).lowercasedText < text)
        var seen = Set<UUID>()
        for _ in 0..<10_000 { seen.insert(UUID.timeOrdered(at: date)) }
        #expect(seen.count == 10_000)
        #expect(Array(OrderID().description)[14] == "7")
    }
}
