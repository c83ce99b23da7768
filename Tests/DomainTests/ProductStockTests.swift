import Domain
import Foundation
import Testing

@Suite("Products and their stock")
struct ProductStockTests {
    static func product(
        quantity: Int64, reserved: Int64 = 0, threshold: Int64 = 5, track: Bool = true, negative: Bool = false,
        active: Bool = true
    ) -> Product {
        Product(
            id: ProductID(), storeID: StoreID(), name: "Cola", price: 900, currency: .ils, vatRateBP: 1800,
            trackStock: track, quantity: quantity, reserved: reserved, lowStockThreshold: threshold,
            allowNegativeStock: negative, active: active, createdAt: Date(), updatedAt: Date())
    }

    @Test(
        "stock status and whether it can be sold follow what is available, the threshold and the product's settings",
        arguments: [
            (10, 0, 5, true, false, true, StockStatus.inStock, true),
            (10, 5, 5, true, false, true, .low, true),
            (6, 0, 5, true, false, true, .inStock, true),
            (5, 0, 5, true, false, true, .low, true),
            (1, 0, 5, true, false, true, .low, true),
            (3, 3, 5, true, false, true, .outOfStock, false),
            (0, 0, 5, true, true, true, .outOfStock, true),
            (0, 0, 5, false, false, true, .notTracked, true),
            (10, 0, 5, true, false, false, .inStock, false),
        ] as [(Int64, Int64, Int64, Bool, Bool, Bool, StockStatus, Bool)])
    func status(
        quantity: Int64, reserved: Int64, threshold: Int64, track: Bool, negative: Bool, active: Bool,
        status: StockStatus, canSell: Bool
    ) {
        let product = Self.product(
            quantity: quantity, reserved: reserved, threshold: threshold, track: track, negative: negative,
            active: active)
        #expect(product.available == quantity - reserved)
        #expect(product.stockStatus == status)
        #expect(product.canSell == canSell)
    }

    @Test("an adjustment never leaves less than reservations hold, unless negative stock is allowed")
    func adjustments() throws {
        let product = Self.product(quantity: 10, reserved: 4)
        #expect(try product.quantity(adjustedBy: 5) == 15)
        #expect(try product.quantity(adjustedBy: -6) == 4)
        let refusal = #expect(throws: OrderlyError.self) { try product.quantity(adjustedBy: -7) }
        #expect(refusal?.code == .conflict)
        #expect(refusal?.reason == .insufficientStock)
        #expect(refusal?.details?["available"] == .int(6))
        #expect(refusal?.details?["product_id"] == .string(product.id.description))
        #expect(try Self.product(quantity: 1, negative: true).quantity(adjustedBy: -3) == -2)
        // Adding to stock that is already below zero is always allowed.
        #expect(try Self.product(quantity: 0, reserved: 2).quantity(adjustedBy: 1) == 1)
        let tooMuch = #expect(throws: OrderlyError.self) {
            try product.quantity(adjustedBy: Product.maximumQuantity)
        }
        #expect(tooMuch?.details?["adjustment"] != nil)
        #expect(throws: OrderlyError.self) { try product.quantity(adjustedBy: .max) }
        #expect(throws: OrderlyError.self) {
            try Self.product(quantity: -1, negative: true).quantity(adjustedBy: .min + 1)
        }
    }

    @Test("a reservation takes only what is available, of tracked stock that may not go negative")
    func reservations() throws {
        let product = Self.product(quantity: 10, reserved: 7)
        try product.checkReservable(3)
        let refusal = #expect(throws: OrderlyError.self) { try product.checkReservable(4) }
        #expect(refusal?.reason == .insufficientStock)
        #expect(refusal?.details?["available"] == .int(3))
        try Self.product(quantity: 0, track: false).checkReservable(100)
        try Self.product(quantity: 0, negative: true).checkReservable(100)
    }

    @Test("low and out of stock are raised once per crossing downwards, the more severe when both")
    func alerts() {
        let cases: [(StockStatus, StockStatus, String?)] = [
            (.inStock, .low, "stock.low"),
            (.inStock, .outOfStock, "stock.out"),
            (.low, .outOfStock, "stock.out"),
            (.low, .low, nil),
            (.outOfStock, .outOfStock, nil),
            (.low, .inStock, nil),
            (.outOfStock, .low, nil),
            (.notTracked, .outOfStock, nil),
            (.inStock, .notTracked, nil),
        ]
        for (before, after, alert) in cases { #expect(after.alert(after: before) == alert, "\(before) → \(after)") }
        // Sales from 7 down to 0 with a threshold of 5: one `stock.low` at 5, one `stock.out` at 0.
        var product = Self.product(quantity: 7)
        var raised: [String] = []
        for _ in 0..<7 {
            let before = product.stockStatus
            product.quantity -= 1
            if let alert = product.stockStatus.alert(after: before) { raised.append(alert) }
        }
        #expect(raised == ["stock.low", "stock.out"])
    }

    @Test("the JSON carries the derived fields, and decoding ignores them")
    func json() throws {
        let product = Self.product(quantity: 4, reserved: 1)
        let data = try JSONEncoder().encode(product)
        let object = try JSONDecoder().decode([String: JSONValue].self, from: data)
        #expect(object["available"] == .int(3))
        #expect(object["stock_status"] == .string("low"))
        #expect(object["can_sell"] == .bool(true))
        #expect(object["vat_rate_bp"] == .int(1800))
        var tampered = object
        tampered["available"] = .int(1000)
        tampered["stock_status"] = .string("in_stock")
        let decoded = try JSONDecoder().decode(Product.self, from: try JSONEncoder().encode(tampered))
        #expect(decoded.available == 3)
        #expect(decoded.stockStatus == .low)
    }

    /// A new product with the store's defaults, as the catalog starts one before applying a draft.
    static func blank() -> Product {
        Product(
            id: ProductID(), storeID: StoreID(), name: "", price: 0, currency: .ils, vatRateBP: 1800,
            trackStock: false, lowStockThreshold: 5, createdAt: Date(), updatedAt: Date())
    }

    @Test("a new product needs a name and a price; the rest takes the store's defaults")
    func creation() throws {
        let blank = Self.blank()
        let missing = #expect(throws: OrderlyError.self) {
            _ = try ProductDraft().validated(creating: blank)
        }
        #expect(missing?.details == ["name": .string("is required"), "price": .string("is required")])
        let product = try ProductDraft(
            name: "  Cola 330 ml ", sku: "COLA-330", barcode: "7290000066318", category: "Drinks", price: 900,
            emoji: "🥤", trackStock: true, quantity: 24
        ).validated(creating: blank)
        #expect(product.name == "Cola 330 ml")
        #expect(product.vatRateBP == 1800)
        #expect(product.lowStockThreshold == 5)
        #expect(product.quantity == 24)
        #expect(product.stockStatus == .inStock)
        #expect(product.active)
    }

    @Test("every bad field is named, with what is wrong with it")
    func badFields() {
        let blank = Self.blank()
        let refusal = #expect(throws: OrderlyError.self) {
            _ = try ProductDraft(
                name: " ", sku: String(repeating: "x", count: 65), barcode: "729 000", price: -1, vatRateBP: 10_001,
                imageURL: "ftp://images.example.com/cola.png", quantity: -3, lowStockThreshold: -1
            ).validated(creating: blank)
        }
        #expect(
            refusal?.details == [
                "name": .string("must not be empty"), "sku": .string("must be at most 64 characters"),
                "barcode": .string("must be letters, digits and - . _ only"),
                "price": .string("must be from 0 to 10000000000"),
                "vat_rate_bp": .string("must be from 0 to 10000"),
                "image_url": .string("must be an http or https address"),
                "quantity": .string("must be from 0 to 1000000000"),
                "low_stock_threshold": .string("must be from 0 to 1000000000"),
            ])
    }

    @Test("a patch changes what it names, clears blank optional text, and leaves stock to adjustments")
    func patch() throws {
        var product = try ProductDraft(name: "Cola", sku: "C1", category: "Drinks", price: 900, quantity: 10)
            .validated(creating: Self.blank())
        product = try ProductDraft(category: "", price: 950, active: false).validated(updating: product)
        #expect(product.name == "Cola")
        #expect(product.sku == "C1")
        #expect(product.category == nil)
        #expect(product.price == 950)
        #expect(!product.active && !product.canSell)
        let refusal = #expect(throws: OrderlyError.self) {
            _ = try ProductDraft(id: ProductID(), quantity: 3).validated(updating: product)
        }
        #expect(refusal?.details?.keys.sorted() == ["id", "quantity"])
    }

    @Test("a reservation ends once; it expires only when due, never once held for its order; a late commit is refused")
    func reservationEnds() throws {
        let now = Date.currentMillisecond
        var reservation = Reservation(
            id: ReservationID(), storeID: StoreID(), lines: [Reservation.Line(productID: ProductID(), quantity: 2)],
            reference: nil, expiresAt: now.addingTimeInterval(60), createdBy: UserID(), createdAt: now, updatedAt: now)
        #expect(try reservation.ends(as: .expired, at: now) == false)
        #expect(try reservation.ends(as: .expired, at: now.addingTimeInterval(60)))
        #expect(throws: OrderlyError.self) { try reservation.ends(as: .committed, at: now.addingTimeInterval(61)) }
        #expect(try reservation.ends(as: .committed, at: now))
        reservation.expiresAt = nil
        #expect(try reservation.ends(as: .expired, at: now.addingTimeInterval(1e9)) == false)
        reservation.status = .expired
        #expect(try reservation.ends(as: .released, at: now) == false)
        let closed = #expect(throws: OrderlyError.self) { try reservation.ends(as: .committed, at: now) }
        #expect(closed?.reason == .reservationClosed)
    }
}
