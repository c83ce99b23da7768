import Domain
import Testing

@Suite("Delivery pricing")
struct DeliveryPricingTests {
    @Test(
        "the default tiers: up to 8 boxes 35.00 ×1, up to 16 70.00 ×2, more 105.00 ×3",
        arguments: [(1, 3500, 1), (8, 3500, 1), (9, 7000, 2), (16, 7000, 2), (17, 10_500, 3), (200, 10_500, 3)])
    func defaultTiers(boxes: Int, fee: Int64, multiplier: Int) {
        #expect(DeliveryPricing.standard.quote(forBoxes: boxes) == DeliveryQuote(fee: fee, multiplier: multiplier))
    }

    @Test("no price for fewer than one box")
    func noBoxes() {
        #expect(DeliveryPricing.standard.quote(forBoxes: 0) == nil)
        #expect(DeliveryPricing.standard.quote(forBoxes: -1) == nil)
    }

    @Test("tiers that leave box counts unpriced or go backwards are refused, naming the tier")
    func validation() {
        var problems = FieldProblems()
        DeliveryPricing(tiers: [
            DeliveryTier(maxBoxes: 10, fee: 100, multiplier: 1), DeliveryTier(maxBoxes: 5, fee: -1, multiplier: 0),
            DeliveryTier(maxBoxes: 20, fee: 300, multiplier: 1),
        ]).validate(into: &problems, field: "delivery_pricing")
        #expect(
            problems.reasons == [
                "delivery_pricing.tiers[1].max_boxes": "must be greater than 10",
                "delivery_pricing.tiers[1].fee": "must be from 0 to 100000000",
                "delivery_pricing.tiers[1].multiplier": "must be from 1 to 100",
                "delivery_pricing.tiers[2].max_boxes": "must be null on the last tier",
            ])
        var none = FieldProblems()
        DeliveryPricing(tiers: []).validate(into: &none, field: "p")
        #expect(none.reasons == ["p.tiers": "must list at least one tier"])
        var fine = FieldProblems()
        DeliveryPricing.standard.validate(into: &fine, field: "p")
        #expect(fine.reasons.isEmpty)
    }
}

@Suite("Order drafts")
struct OrderDraftTests {
    @Test("a delivery names every missing recipient and address field at once")
    func missingFields() {
        #expect(
            throws: OrderlyError.invalidFields([
                "recipient_first_name": "is required", "recipient_last_name": "is required", "phone": "is required",
                "street": "is required", "building_no": "is required", "boxes_count": "is required",
            ])
        ) { try OrderDraft().validated() }
    }

    @Test("blank text counts as empty, and a pickup needs no address")
    func blanksAndPickup() throws {
        #expect(throws: OrderlyError.self) { try OrderDraft(recipientFirstName: " ").validated() }
        let pickup = try OrderDraft(fulfillment: .pickup, customerName: "  Noa ").validated()
        #expect(pickup.customerName == "Noa" && pickup.boxesCount == 0 && pickup.deliveryAddress == nil)
    }

    @Test("the delivery address is written on one line")
    func address() throws {
        let draft = try OrderDraft(
            recipientFirstName: "Dana", recipientLastName: "Levi", phone: "+972 50-123-4567", street: "Herzl",
            buildingNo: "12", floor: "3", apartment: "7", city: "Tel Aviv", boxesCount: 2
        ).validated()
        #expect(draft.deliveryAddress == "Herzl 12, floor 3, apt. 7, Tel Aviv")
        #expect(
            throws: OrderlyError.invalidFields(["phone": "must be a phone number: digits, spaces, and + ( ) - only"])
        ) {
            try OrderDraft(
                recipientFirstName: "Dana", recipientLastName: "Levi", phone: "call me", street: "Herzl",
                buildingNo: "12", boxesCount: 2
            ).validated()
        }
    }
}
