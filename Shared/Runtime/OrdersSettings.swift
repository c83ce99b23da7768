import Foundation

/// How long stock held for an order's line waits for the catalog to see the line stored:
/// `ORDERLY_ORDER_LINE_HOLD_SECONDS`, 900 (15 minutes) by default. Once the catalog sees it, the
/// stock is held until the order ends; only a hold whose line was never stored (the process
/// stopped between holding and storing, or the request was sent again meanwhile and its first
/// try's hold could not be given back) waits this long. A catalog that falls further behind on
/// the orders' events (Redis away longer) holds a lapsed line's stock again when it catches
/// up, if the stock is still there. Read by the orders service, and by the load generator, which
/// waits out a hold.
public struct OrdersSettings: Sendable {
    public var lineHoldSeconds: Int

    public init(lineHoldSeconds: Int = 900) {
        self.lineHoldSeconds = lineHoldSeconds
    }

    /// Reads the settings, naming the variable and what is wrong.
    public static func read(from source: ConfigurationSource) throws(ConfigurationError) -> OrdersSettings {
        var reader = source.settings()
        let hold = reader.int("order.lineHoldSeconds", default: 900, in: 10...86_400)
        try reader.finish()
        return OrdersSettings(lineHoldSeconds: hold)
    }
}
