import Contracts
import Domain
import Foundation
import Testing

@Suite("Opening hours and menus")
struct OpeningHoursTests {
    /// 2026-11-25 is a Wednesday; Jerusalem is UTC+2 in November.
    static func time(_ text: String) -> Date { RFC3339.parse(text)! }
    static let jerusalem = TimeZone(identifier: "Asia/Jerusalem")!

    @Test("a period holds from its opening to its closing minute, in the store's time zone")
    func sameDay() {
        let hours = [OpeningPeriod(day: .wed, open: "09:00", close: "17:30")]
        #expect(!hours.isOpen(at: Self.time("2026-11-25T06:59:00Z"), in: Self.jerusalem))
        #expect(hours.isOpen(at: Self.time("2026-11-25T07:00:00Z"), in: Self.jerusalem))
        #expect(hours.isOpen(at: Self.time("2026-11-25T15:29:00Z"), in: Self.jerusalem))
        #expect(!hours.isOpen(at: Self.time("2026-11-25T15:30:00Z"), in: Self.jerusalem))
        // The same instant is Thursday elsewhere.
        #expect(!hours.isOpen(at: Self.time("2026-11-25T12:00:00Z"), in: TimeZone(identifier: "Pacific/Kiritimati")!))
    }

    @Test("a period closing before it opens runs past midnight; 24:00 closes at midnight")
    func pastMidnight() {
        let late = [OpeningPeriod(day: .tue, open: "20:00", close: "02:00")]
        #expect(late.isOpen(at: Self.time("2026-11-24T23:00:00Z"), in: Self.jerusalem))  // Wed 01:00
        #expect(!late.isOpen(at: Self.time("2026-11-25T00:00:00Z"), in: Self.jerusalem))  // Wed 02:00
        #expect(!late.isOpen(at: Self.time("2026-11-25T20:00:00Z"), in: Self.jerusalem))  // Wed 22:00
        let allDay = [OpeningPeriod(day: .wed, open: "00:00", close: "24:00")]
        #expect(allDay.isOpen(at: Self.time("2026-11-25T21:59:00Z"), in: Self.jerusalem))
        #expect(!allDay.isOpen(at: Self.time("2026-11-25T22:00:00Z"), in: Self.jerusalem))
        // Sunday evening into Monday morning wraps around the week.
        let sunday = [OpeningPeriod(day: .sun, open: "22:00", close: "03:00")]
        #expect(sunday.isOpen(at: Self.time("2026-11-23T00:30:00Z"), in: Self.jerusalem))  // Mon 02:30
    }

    @Test("malformed times and empty periods are named")
    func validation() {
        var problems = FieldProblems()
        [
            OpeningPeriod(day: .mon, open: "9:00", close: "24:00"),
            OpeningPeriod(day: .mon, open: "24:00", close: "+1:00"),
            OpeningPeriod(day: .mon, open: "10:00", close: "10:00"),
            OpeningPeriod(day: .mon, open: "00:00", close: "24:00"),
        ].validate(into: &problems, field: "opening_hours")
        #expect(
            problems.reasons.keys.sorted() == [
                "opening_hours[0].open", "opening_hours[1].close", "opening_hours[1].open", "opening_hours[2].close",
            ])
    }

    @Test("a menu groups active products by category, by name, products without one last, with no stock counts")
    func menu() throws {
        let now = Date.currentMillisecond
        let store = Store(
            id: StoreID(), name: "Falafel", tier: .free, address: nil, phone: nil, currency: .ils,
            timezone: "Asia/Jerusalem", vatRates: .standard, deliveryPricing: .standard, lowStockDefault: 5,
            version: 1, createdAt: now, updatedAt: now)
        func product(_ name: String, _ category: String?, quantity: Int64 = 5, active: Bool = true) -> Product {
            var product = Product(
                id: ProductID(), storeID: store.id, name: name, price: 1000, currency: .ils, vatRateBP: 1800,
                trackStock: true, lowStockThreshold: 1, createdAt: now, updatedAt: now)
            product.category = category
            product.quantity = quantity
            product.active = active
            return product
        }
        let menu = Menu(
            store: store,
            products: [
                product("Water", nil), product("Pita", "Mains", quantity: 0), product("falafel", "Mains"),
                product("Cola", "Drinks"), product("Old soup", "Mains", active: false),
            ])
        #expect(menu.categories.map(\.name) == ["Drinks", "Mains", nil])
        #expect(menu.categories[1].items.map(\.name) == ["falafel", "Pita"])
        #expect(menu.categories[1].items.map(\.canSell) == [true, false])
        let json = String(decoding: try JSONEncoder().encode(menu.categories[0].items[0]), as: UTF8.self)
        #expect(!json.contains("quantity") && json.contains("\"can_sell\":true"))
        // A catalog of before `truncated` sends none: read as not truncated.
        var older = try JSONSerialization.jsonObject(with: try JSONEncoder().encode(menu)) as! [String: Any]
        #expect(older.removeValue(forKey: "truncated") as? Bool == false)
        let read = try JSONDecoder().decode(Menu.self, from: try JSONSerialization.data(withJSONObject: older))
        #expect(read == menu)
    }
}
