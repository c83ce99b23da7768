/// VAT arithmetic on VAT-inclusive amounts: the net part of a gross amount is
/// `round(gross × 10000 / (10000 + rate))`, half to even; the VAT is what remains, so net and
/// VAT always add up to the gross to the minor unit.
public enum VAT {
    /// The net part of `gross` (≥ 0) at `rate` basis points (0…10000). Exact for every Int64.
    public static func net(ofGross gross: Int64, rateBasisPoints rate: Int) -> Int64 {
        precondition(gross >= 0 && (0...10_000).contains(rate))
        let divisor = Int64(10_000 + rate)
        // gross = whole × divisor + rest, so gross × 10000 / divisor never overflows.
        let (whole, rest) = gross.quotientAndRemainder(dividingBy: divisor)
        let (fraction, remainder) = (rest * 10_000).quotientAndRemainder(dividingBy: divisor)
        var net = whole * 10_000 + fraction
        if remainder * 2 > divisor || (remainder * 2 == divisor && net % 2 == 1) { net += 1 }
        return net
    }
}

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

/// An order's item totals: sums of its lines, so they always add up to the minor unit.
public struct ItemTotals: Hashable, Sendable {
    public var net: Int64
    public var vat: Int64
    public var gross: Int64

    public init(net: Int64 = 0, vat: Int64 = 0, gross: Int64 = 0) {
        self.net = net
        self.vat = vat
        self.gross = gross
    }

    /// The totals of `lines`; more than Int64 can hold is refused rather than wrapped.
    public init(_ lines: [LineAmounts]) throws(OrderlyError) {
        self.init()
        for line in lines {
            let (net, netOverflow) = self.net.addingReportingOverflow(line.lineNet)
            let (vat, vatOverflow) = self.vat.addingReportingOverflow(line.lineVAT)
            let (gross, grossOverflow) = self.gross.addingReportingOverflow(line.lineGross)
            guard !netOverflow, !vatOverflow, !grossOverflow else {
                throw OrderlyError(.totalTooLarge, "the order's total is too large")
            }
            (self.net, self.vat, self.gross) = (net, vat, gross)
        }
    }
}
