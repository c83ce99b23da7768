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

    @Test("store roles see only their own store; the admin sees all")
    func storeScope() {
        let store = StoreID()
        let other = StoreID()
        let staff = Principal(userID: UserID(), role: .staff, storeID: store)
        #expect(staff.canAccess(store: store))
        #expect(!staff.canAccess(store: other))
        #expect(Principal(userID: UserID(), role: .admin, storeID: nil).canAccess(store: other))
        #expect(!Principal(userID: UserID(), role: .courier, storeID: nil).canAccess(store: store))
        #expect(Role.allCases.filter(\.isStoreRole) == [.owner, .manager, .staff])
    }

    @Test("a principal uses snake_case keys")
    func principalKeys() throws {
        let principal = Principal(userID: UserID(), role: .owner, storeID: StoreID())
        let object = try JSONSerialization.jsonObject(with: JSONEncoder().encode(principal)) as? [String: Any]
        #expect(Set(object?.keys.map { $0 } ?? []) == ["user_id", "role", "store_id"])
    }
}
