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
