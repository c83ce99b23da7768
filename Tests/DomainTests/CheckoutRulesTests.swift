import Domain
import Foundation
import Testing

/// A customer's order in-process: what a checkout must hold, how a line is priced from its
/// product and options, and that a card order is accepted only once paid.
@Suite("Checkout rules")
struct CheckoutRulesTests {
    static let store = StoreID()
    static let customer = CheckoutCustomer(name: "Dana Levi", phone: "050-1112223")

    /// A falafel at 25.00: size exactly one of small and large (+5.00), extras up to two.
    static func falafel(active: Bool = true) -> Product {
        var product = Product(
            id: ProductID(), storeID: store, name: "Falafel", price: 2500, currency: .ils, vatRateBP: 1800,
            trackStock: false, lowStockThreshold: 0, createdAt: Date(), updatedAt: Date())
        product.active = active
        product.optionGroups = [
            OptionGroup(
                id: OptionGroupID(), name: "Size", minSelect: 1, maxSelect: 1,
                options: [
                    .init(id: OptionID(), name: "Small", priceDelta: 0),
                    .init(id: OptionID(), name: "Large", priceDelta: 500),
                ]),
            OptionGroup(
                id: OptionGroupID(), name: "Extras", minSelect: 0, maxSelect: 2,
                options: [
                    .init(id: OptionID(), name: "Tahini", priceDelta: 200),
                    .init(id: OptionID(), name: "Egg", priceDelta: 300),
                    .init(id: OptionID(), name: "Chips", priceDelta: 400),
                ]),
        ]
        return product
    }

    static func line(_ product: Product, _ options: [OptionID], quantity: Int = 1) -> ValidCheckout.Line {
        ValidCheckout.Line(productID: product.id, quantity: quantity, optionIDs: options, notes: nil)
    }

    /// A customer's pickup order of `total`, paid by `method`, nothing paid yet.
    static func customerOrder(_ status: OrderStatus, total: Int64, paidBy method: OrderPaymentMethod) throws -> Order {
        var order = Order(
            id: OrderID(), number: 1, storeID: store, status: status, version: 1,
            draft: try OrderDraft(fulfillment: .pickup).validated(), pickupAddress: nil,
            quote: DeliveryQuote(fee: 0, multiplier: 0), currency: .ils, createdBy: UserID(), createdAt: Date())
        order.total = total
        order.paymentMethod = method
        return order
    }

    @Test("a line costs the product's price and its options' deltas, named with them")
    func pricing() throws {
        let product = Self.falafel()
        let (size, extras) = (product.optionGroups[0].options, product.optionGroups[1].options)
        let item = try Self.line(product, [size[1].id, extras[0].id], quantity: 2).item(
            of: product, in: Self.store, currency: .ils, field: "items[0]")
        #expect(item.unitPriceGross == 3200 && item.lineGross == 6400 && item.vatRateBasisPoints == 1800)
        #expect(item.description == "Falafel (Large, Tahini)" && item.options?.map(\.name) == ["Large", "Tahini"])
    }

    @Test("options outside a group's bounds, of another product, or an inactive product are refused by name")
    func options() throws {
        let product = Self.falafel()
        let (size, extras) = (product.optionGroups[0].options, product.optionGroups[1].options)
        for choice in [[], [size[0].id, size[1].id], [size[0].id] + extras.map(\.id), [size[0].id, OptionID()]] {
            #expect {
                try Self.line(product, choice).item(of: product, in: Self.store, currency: .ils, field: "items[3]")
            } throws: { error in
                (error as? OrderlyError)?.details?["items[3].option_ids"] != nil
            }
        }
        #expect {
            try Self.line(product, [size[0].id]).item(
                of: Self.falafel(active: false), in: Self.store, currency: .ils, field: "items[0]")
        } throws: { ($0 as? OrderlyError)?.reason == .productInactive }
        #expect {
            try Self.line(product, [size[0].id]).item(of: product, in: StoreID(), currency: .ils, field: "items[1]")
        } throws: { ($0 as? OrderlyError)?.details?["items[1].product_id"] != nil }
    }

    @Test("a checkout names every missing field; a pickup takes no address and no tip; the customer is the recipient")
    func drafts() throws {
        #expect {
            try CheckoutDraft(items: []).validated(for: Self.customer)
        } throws: { error in
            Set((error as? OrderlyError)?.details?.keys ?? [:].keys) == [
                "store_id", "payment_method", "items", "address",
            ]
        }
        #expect {
            try CheckoutDraft(
                storeID: Self.store, fulfillment: .pickup, address: AddressFields(street: "A", buildingNo: "1"),
                items: [CheckoutLine(productID: ProductID())], tip: 100, paymentMethod: .card
            ).validated(for: Self.customer)
        } throws: { error in
            Set((error as? OrderlyError)?.details?.keys ?? [:].keys) == ["address", "tip"]
        }
        let valid = try CheckoutDraft(
            storeID: Self.store, address: AddressFields(street: "Dizengoff", buildingNo: "50", phone: "052-9998887"),
            items: [CheckoutLine(productID: ProductID(), quantity: 2)], tip: 300, paymentMethod: .cashOnDelivery
        ).validated(for: Self.customer)
        #expect(valid.order.recipientFirstName == "Dana" && valid.order.recipientLastName == "Levi")
        #expect(valid.order.phone == "052-9998887" && valid.order.boxesCount == 1 && valid.tip == 300)
    }

    @Test(
        "a courier collects at least what is left and the tip of an unpaid cash-on-delivery order, and no cash otherwise"
    )
    func cashAtTheDoor() throws {
        var order = try Self.customerOrder(.outForDelivery, total: 4000, paidBy: .cashOnDelivery)
        order.tip = 500
        #expect(try order.collectedCash(5000) == 5000)
        for short in [nil, 4499] as [Int64?] {
            #expect {
                try order.collectedCash(short)
            } throws: { error in
                let error = error as? OrderlyError
                return error?.reason == .cashRequired && error?.details?["cash_collected"] != nil
            }
        }
        order.setPaid(4000, anyPayment: true)
        #expect(try order.collectedCash(nil) == nil)
        #expect { try order.collectedCash(100) } throws: { ($0 as? OrderlyError)?.code == .invalidArgument }
        order.paymentMethod = .card
        order.setPaid(0, anyPayment: false)
        #expect { try order.collectedCash(100) } throws: { ($0 as? OrderlyError)?.code == .invalidArgument }
    }

    @Test("a card order is accepted only once paid; a cash-on-delivery order at once")
    func paymentBeforeAccept() throws {
        var order = try Self.customerOrder(.pending, total: 2500, paidBy: .card)
        let owner = AccessPolicy(Principal(userID: UserID(), role: .owner, storeID: Self.store))
        #expect(owner.allowedActions(on: order) == [.cancel])
        #expect(throws: Never.self) {
            guard case .failure(.paymentRequired) = owner.transition(.accept, on: order) else {
                throw OrderlyError(.internal, "accepted unpaid")
            }
        }
        order.setPaid(2500, anyPayment: true)
        #expect(owner.allowedActions(on: order).contains(.accept))
        order.paymentMethod = .cashOnDelivery
        order.setPaid(0, anyPayment: false)
        #expect(owner.allowedActions(on: order).contains(.accept))
    }
}
