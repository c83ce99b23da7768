import Foundation

/// A checkout that passed validation: the order's own fields as a store's draft has them, and
/// the lines still to be priced against the catalog.
public struct ValidCheckout: Hashable, Sendable {
    public var storeID: StoreID
    public var order: ValidOrderDraft
    public var lines: [Line]
    public var tip: Int64
    public var customerNotes: String?
    public var paymentMethod: OrderPaymentMethod
    /// Where a delivery goes on the map, when its address says.
    public var place: GeoPoint?

    public struct Line: Hashable, Sendable {
        public var productID: ProductID
        public var quantity: Int
        public var optionIDs: [OptionID]
        public var notes: String?

        public init(productID: ProductID, quantity: Int, optionIDs: [OptionID], notes: String?) {
            self.productID = productID
            self.quantity = quantity
            self.optionIDs = optionIDs
            self.notes = notes
        }
    }
}

extension ValidCheckout.Line {
    /// The order line of this choice of `product` (looked up by the line's id), in an order of
    /// `currency`: the product's price plus the chosen options' deltas, its VAT rate, and its
    /// name with the options' names. `field` (`items[2]`) names what is wrong: a product that is
    /// not on the store's menu, options that are not the product's or outside a group's
    /// `min_select…max_select`; an inactive product is 422 `product_inactive`.
    public func item(of product: Product?, in store: StoreID, currency: CurrencyCode, field: String)
        throws(OrderlyError) -> OrderItem
    {
        guard let product, product.storeID == store else {
            throw OrderlyError.invalidFields(["\(field).product_id": "is not a product of the store"])
        }
        try product.checkForSale(field: "\(field).product_id")
        var chosen: [OrderItem.ChosenOption] = []
        var problems = FieldProblems()
        for id in optionIDs {
            guard let group = product.optionGroups.first(where: { $0.options.contains { $0.id == id } }),
                let option = group.options.first(where: { $0.id == id })
            else {
                problems.add("\(field).option_ids", "names \(id), not an option of \(product.name)")
                continue
            }
            chosen.append(.init(groupID: group.id, id: option.id, name: option.name, priceDelta: option.priceDelta))
        }
        for group in product.optionGroups {
            let count = chosen.count { $0.groupID == group.id }
            guard count < group.minSelect || count > group.maxSelect else { continue }
            let range =
                group.minSelect == group.maxSelect
                ? "exactly \(group.minSelect)" : "from \(group.minSelect) to \(group.maxSelect)"
            problems.add("\(field).option_ids", "must choose \(range) of \(group.name), not \(count)")
        }
        try problems.check()
        var item = try OrderItemDraft(quantity: quantity).newItem(
            of: product, currency: currency, holding: nil, options: chosen)
        item.notes = notes
        return item
    }
}
