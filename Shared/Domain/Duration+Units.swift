/// The units Redis commands and thread sleeps take durations in.
extension Duration {
    /// Whole milliseconds, as `BLOCK` and `XAUTOCLAIM` take them.
    var wholeMilliseconds: Int {
        Int(components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000)
    }

    /// Seconds with their fraction, as `Thread.sleep(forTimeInterval:)` takes them.
    var timeInterval: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
