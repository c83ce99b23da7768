/// An ISO 4217 currency code: three upper-case ASCII letters.
public struct CurrencyCode: Hashable, Sendable, Codable, CustomStringConvertible {
    /// The three letters, for example `ILS`.
    public let code: String

    /// Validates and wraps a code; `nil` unless it is three upper-case letters A–Z.
    public init?(_ code: String) {
        let scalars = code.unicodeScalars
        guard scalars.count == 3, scalars.allSatisfy({ $0.value >= 65 && $0.value <= 90 }) else { return nil }
        self.code = code
    }

    public static let ils = CurrencyCode("ILS")!
    public static let eur = CurrencyCode("EUR")!
    public static let usd = CurrencyCode("USD")!

    /// How many digits the minor unit has (2 for most currencies, 0 for JPY, 3 for KWD).
    public var minorUnitDigits: Int {
        switch code {
        case "BIF", "CLP", "DJF", "GNF", "ISK", "JPY", "KMF", "KRW", "PYG", "RWF", "UGX", "UYI", "VND", "VUV",
            "XAF", "XOF", "XPF":
            return 0
        case "BHD", "IQD", "JOD", "KWD", "LYD", "OMR", "TND":
            return 3
        default:
            return 2
        }
    }

    public var description: String { code }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        guard let currency = CurrencyCode(try container.decode(String.self)) else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "must be an ISO 4217 code of three upper-case letters")
        }
        self = currency
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(code)
    }
}

/// An amount of money: an integer count of minor units in one currency. Never a float.
///
/// `Money(minorUnits: 3500, currency: .ils)` is 35.00 ₪. Arithmetic refuses to mix currencies and
/// reports overflow instead of trapping, so a hostile quantity cannot crash a service.
public struct Money: Hashable, Sendable, Codable, CustomStringConvertible {
    /// The amount in minor units (agorot, cents); negative for money paid out.
    public var minorUnits: Int64
    /// The currency the amount is in.
    public var currency: CurrencyCode

    public init(minorUnits: Int64, currency: CurrencyCode) {
        self.minorUnits = minorUnits
        self.currency = currency
    }

    /// Zero in the given currency.
    public static func zero(_ currency: CurrencyCode) -> Money { Money(minorUnits: 0, currency: currency) }

    /// The sum of two amounts in the same currency.
    public func adding(_ other: Money) throws(MoneyError) -> Money {
        guard currency == other.currency else { throw .currencyMismatch(currency, other.currency) }
        let (sum, overflow) = minorUnits.addingReportingOverflow(other.minorUnits)
        guard !overflow else { throw .overflow }
        return Money(minorUnits: sum, currency: currency)
    }

    /// The difference of two amounts in the same currency.
    public func subtracting(_ other: Money) throws(MoneyError) -> Money {
        guard currency == other.currency else { throw .currencyMismatch(currency, other.currency) }
        let (difference, overflow) = minorUnits.subtractingReportingOverflow(other.minorUnits)
        guard !overflow else { throw .overflow }
        return Money(minorUnits: difference, currency: currency)
    }

    /// This amount taken `quantity` times (a line of several units).
    public func multiplied(by quantity: Int64) throws(MoneyError) -> Money {
        let (product, overflow) = minorUnits.multipliedReportingOverflow(by: quantity)
        guard !overflow else { throw .overflow }
        return Money(minorUnits: product, currency: currency)
    }

    /// The amount with its decimal point and currency code, for receipts and logs: `35.00 ILS`.
    public var description: String {
        let digits = currency.minorUnitDigits
        let sign = minorUnits < 0 ? "-" : ""
        let magnitude = minorUnits.magnitude
        guard digits > 0 else { return "\(sign)\(magnitude) \(currency)" }
        var scale: UInt64 = 1
        for _ in 0..<digits { scale *= 10 }
        let fraction = String(magnitude % scale)
        let padded = String(repeating: "0", count: digits - fraction.count) + fraction
        return "\(sign)\(magnitude / scale).\(padded) \(currency)"
    }
}

/// Why a money computation was refused.
public enum MoneyError: Error, Hashable, Sendable {
    /// The two amounts are in different currencies.
    case currencyMismatch(CurrencyCode, CurrencyCode)
    /// The result does not fit in 64 bits of minor units.
    case overflow
}
