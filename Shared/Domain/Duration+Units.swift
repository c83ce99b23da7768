/// Durations in the units Redis commands, SQL columns and thread sleeps take.
extension Duration {
    /// Whole milliseconds, as `BLOCK`, `XAUTOCLAIM` and the storage tables' times take them.
    public var wholeMilliseconds: Int {
        Int(components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000)
    }

    /// Seconds with their fraction, as `Thread.sleep(forTimeInterval:)` takes them.
    public var timeInterval: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
