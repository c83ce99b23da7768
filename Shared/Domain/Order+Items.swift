extension Order {
    /// The most lines an order holds.
    public static let maximumItems = 200

    /// Whether the order's items and own fields may still change: not once it is out for
    /// delivery, delivered, collected, despatched or cancelled.
    public var isEditable: Bool { status.isInStore }

    /// Refuses a change to a locked order with 422 and the reason.
    public func requireEditable() throws(OrderlyError) {
        guard isEditable else {
            throw OrderlyError(
                .orderLocked, "an order that is \(status.rawValue) can no longer change")
        }
    }

    /// Sums the lines into `items_net`, `items_vat`, `items_gross` and `total`.
    public mutating func recomputeTotals() throws(OrderlyError) {
        let totals = try ItemTotals(
            items.map {
                LineAmounts(
                    unitPriceNet: $0.unitPriceNet, lineGross: $0.lineGross, lineNet: $0.lineNet, lineVAT: $0.lineVAT)
            })
        let (total, overflow) = totals.gross.addingReportingOverflow(deliveryFee)
        guard !overflow else {
            throw OrderlyError(.totalTooLarge, "the order's total is too large")
        }
        (itemsNet, itemsVAT, itemsGross, self.total) = (totals.net, totals.vat, totals.gross, total)
    }
}
