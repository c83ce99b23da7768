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
