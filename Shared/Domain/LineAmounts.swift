/// A line's amounts in minor units. A `device_purchase` line is money paid to the customer: its
/// gross, net and VAT are negative, so the order's totals subtract it.
public struct LineAmounts: Hashable, Sendable {
    public var unitPriceNet: Int64
    public var lineGross: Int64
    public var lineNet: Int64
    public var lineVAT: Int64

    public init(unitPriceNet: Int64, lineGross: Int64, lineNet: Int64, lineVAT: Int64) {
        self.unitPriceNet = unitPriceNet
        self.lineGross = lineGross
        self.lineNet = lineNet
        self.lineVAT = lineVAT
    }

    /// Prices a line from what staff type: the VAT-inclusive unit price and the quantity.
    /// Out-of-range input is an `invalid_argument` naming the field.
    public init(type: ItemType, quantity: Int, unitPriceGross: Int64, vatRateBasisPoints rate: Int) throws(OrderlyError)
    {
        var problems = FieldProblems()
        _ = problems.integer(quantity, "quantity", in: 1...100_000)
        _ = problems.integer(unitPriceGross, "unit_price_gross", in: 0...10_000_000_000)
        _ = problems.integer(rate, "vat_rate_bp", in: 0...10_000)
        try problems.check()
        let sign: Int64 = type == .devicePurchase ? -1 : 1
        // At most 10^5 × 10^10: far inside Int64.
        let gross = Int64(quantity) * unitPriceGross
        let net = VAT.net(ofGross: gross, rateBasisPoints: rate)
        self.unitPriceNet = sign * VAT.net(ofGross: unitPriceGross, rateBasisPoints: rate)
        self.lineGross = sign * gross
        self.lineNet = sign * net
        self.lineVAT = sign * (gross - net)
    }
}
