import Domain
import Foundation
import Testing

/// What is left of a person who closed their account: the account and the orders kept for the
/// accounts of the stores and the platform, with nothing that names or reaches them.
@Suite("Erasure")
struct ErasureTests {
    @Test("a closed account keeps its id and role, and nothing of the person")
    func user() {
        let now = Date()
        var dana = User(
            id: UserID(), email: "dana@example.com", name: "Dana Levi", phone: "050-1112223", role: .courier,
            storeID: nil, staffRole: nil, active: true, emailVerified: true, onDuty: true, locale: "he",
            version: 3, createdAt: now, updatedAt: now)
        dana.photoURL = "https://example.com/dana.jpg"
        let erased = dana.erased()
        #expect(erased.id == dana.id && erased.role == .courier && erased.version == 3)
        #expect(erased.name == "Deleted courier" && erased.email == "deleted-\(dana.id)@deleted.invalid")
        #expect(erased.phone == nil && erased.photoURL == nil)
        #expect(!erased.active && !erased.onDuty && !erased.emailVerified)
    }

    @Test("an erased customer's order keeps its lines and money, and loses their name, phone, address and notes")
    func order() throws {
        let draft = try OrderDraft(
            fulfillment: .delivery, recipientFirstName: "Dana", recipientLastName: "Levi", phone: "050 1234567",
            street: "Dizengoff", buildingNo: "50", floor: "2", apartment: "7", city: "Tel Aviv",
            deliveryNotes: "ring twice", boxesCount: 1, customerName: "Dana Levi"
        ).validated()
        var order = Order(
            id: OrderID(), number: 7, storeID: StoreID(), status: .delivered, version: 4, draft: draft,
            pickupAddress: "1 Herzl St", quote: DeliveryQuote(fee: 1500, multiplier: 1), currency: .ils,
            createdBy: UserID(), createdAt: Date())
        order.customerNotes = "no onions"
        let erased = order.erasingCustomer()
        #expect(erased.customerName == Order.deletedCustomer && erased.recipientFirstName == Order.deletedCustomer)
        for field in [
            erased.recipientLastName, erased.phone, erased.street, erased.buildingNo, erased.floor, erased.apartment,
            erased.city, erased.deliveryNotes, erased.deliveryAddress, erased.customerNotes,
        ] {
            #expect(field == nil)
        }
        #expect(erased.total == order.total && erased.items == order.items && erased.version == order.version)
        #expect(erased.pickupAddress == "1 Herzl St" && erased.status == .delivered)
    }
}
