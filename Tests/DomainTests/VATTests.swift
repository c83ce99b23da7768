import Domain
import Foundation
import Testing

@Suite("VAT and line pricing")
struct VATTests {
    @Test(
        "the net part of a gross amount, rounded half to even",
        arguments: [
            // (gross, rate bp, net)
            (0, 1700, 0), (117, 1700, 100), (100, 1700, 85), (1, 1700, 1), (1, 0, 1), (12_345, 0, 12_345),
            (1, 2000, 1), (3, 2000, 2), (9, 2000, 8), (15, 2000, 12), (120, 2000, 100), (1, 10_000, 0),
            (3, 10_000, 2), (Int64.max, 1700, 7_883_223_963_123_740_006),
        ] as [(Int64, Int, Int64)])
    func net(gross: Int64, rate: Int, net: Int64) {
        #expect(VAT.net(ofGross: gross, rateBasisPoints: rate) == net)
    }

    @Test("a line's VAT is what its net leaves of its gross, to the cent")
    func lines() throws {
        let cent = try LineAmounts(type: .accessory, quantity: 1, unitPriceGross: 1, vatRateBasisPoints: 1700)
        #expect(cent == LineAmounts(unitPriceNet: 1, lineGross: 1, lineNet: 1, lineVAT: 0))
        let three = try LineAmounts(type: .product, quantity: 3, unitPriceGross: 1, vatRateBasisPoints: 2000)
        #expect(three == LineAmounts(unitPriceNet: 1, lineGross: 3, lineNet: 2, lineVAT: 1))
        let repair = try LineAmounts(type: .repair, quantity: 2, unitPriceGross: 11_700, vatRateBasisPoints: 1700)
        #expect(repair == LineAmounts(unitPriceNet: 10_000, lineGross: 23_400, lineNet: 20_000, lineVAT: 3400))
        let large = try LineAmounts(
            type: .product, quantity: 100_000, unitPriceGross: 10_000_000_000, vatRateBasisPoints: 1700)
        #expect(large.lineGross == 1_000_000_000_000_000)
        #expect(large.lineNet + large.lineVAT == large.lineGross)
    }

    @Test("a device bought from the customer counts negative")
    func devicePurchase() throws {
        let bought = try LineAmounts(
            type: .devicePurchase, quantity: 1, unitPriceGross: 11_700, vatRateBasisPoints: 1700)
        #expect(bought == LineAmounts(unitPriceNet: -10_000, lineGross: -11_700, lineNet: -10_000, lineVAT: -1700))
        let sold = try LineAmounts(type: .deviceSale, quantity: 1, unitPriceGross: 23_400, vatRateBasisPoints: 1700)
        let totals = try ItemTotals([sold, bought])
        #expect(totals == ItemTotals(net: 10_000, vat: 1700, gross: 11_700))
    }

    @Test("out-of-range input names each field")
    func refusals() {
        #expect(
            throws: OrderlyError.invalidFields([
                "quantity": "must be from 1 to 100000", "unit_price_gross": "must be from 0 to 10000000000",
                "vat_rate_bp": "must be from 0 to 10000",
            ])
        ) {
            try LineAmounts(type: .product, quantity: 0, unitPriceGross: -1, vatRateBasisPoints: 10_001)
        }
    }

    @Test("totals that would overflow are refused, not wrapped")
    func overflow() throws {
        let line = LineAmounts(unitPriceNet: 0, lineGross: Int64.max, lineNet: Int64.max, lineVAT: 0)
        #expect(throws: OrderlyError.self) { try ItemTotals([line, line]) }
    }
}

@Suite("Order items and edits")
struct OrderItemTests {
    static let rates = VATRates(repair: 1700, deviceSale: 1800, accessory: 2000, devicePurchase: 0, product: 1800)

    @Test("a new line takes the store's rate for its type, one unit unless told, and names what is missing")
    func newLine() throws {
        let line = try OrderItemDraft(type: .accessory, description: " Case ", unitPriceGross: 1200).newItem(
            rates: Self.rates)
        #expect(line.vatRateBasisPoints == 2000 && line.quantity == 1 && line.description == "Case")
        #expect(line.lineNet == 1000 && line.lineVAT == 200)
        #expect(throws: OrderlyError.invalidFields(["type": "is required", "unit_price_gross": "is required"])) {
            try OrderItemDraft(description: "x").newItem(rates: Self.rates)
        }
        let tooMany = #expect(throws: OrderlyError.self) {
            try OrderItemDraft(type: .repair, description: "x", quantity: 0, unitPriceGross: -1).newItem(
                rates: Self.rates)
        }
        #expect(Set(tooMany?.details?.keys ?? [:].keys) == ["quantity", "unit_price_gross"])
    }

    @Test("a changed type brings its rate unless the change names one; amounts follow")
    func changedLine() throws {
        let line = try OrderItemDraft(type: .repair, description: "Fix", unitPriceGross: 11_700).newItem(
            rates: Self.rates)
        let sold = try OrderItemDraft(type: .deviceSale).applied(to: line, rates: Self.rates)
        #expect(sold.vatRateBasisPoints == 1800 && sold.lineNet == 9915)
        let bought = try OrderItemDraft(type: .devicePurchase, quantity: 2).applied(to: line, rates: Self.rates)
        #expect(bought.vatRateBasisPoints == 0 && bought.lineGross == -23_400 && bought.lineVAT == 0)
        let named = try OrderItemDraft(type: .product, vatRateBasisPoints: 500).applied(to: line, rates: Self.rates)
        #expect(named.vatRateBasisPoints == 500)
    }

    @Test("an edit keeps what it leaves out, clears blank optional text and cannot move the order")
    func orderEdit() throws {
        let draft = try OrderDraft(
            recipientFirstName: "A", recipientLastName: "B", phone: "050 1234567", street: "S", buildingNo: "1",
            floor: "2", boxesCount: 1
        ).validated()
        let order = Order(
            id: OrderID(), number: 1, storeID: StoreID(), status: .pending, version: 1, draft: draft,
            pickupAddress: nil, quote: DeliveryQuote(fee: 3500, multiplier: 1), currency: .ils, createdBy: UserID(),
            createdAt: Date())
        let edited = try order.merging(OrderDraft(floor: "", boxesCount: 9))
        #expect(edited.floor == nil && edited.boxesCount == 9 && edited.street == "S")
        #expect(throws: OrderlyError.invalidFields(["store_id": "cannot change"])) {
            try order.merging(OrderDraft(storeID: StoreID()))
        }
        #expect(throws: OrderlyError.self) { try order.merging(OrderDraft(street: " ")) }
        let pickup = try order.merging(OrderDraft(fulfillment: .pickup))
        #expect(pickup.fulfillment == .pickup && pickup.deliveryAddress == nil)
    }
}
