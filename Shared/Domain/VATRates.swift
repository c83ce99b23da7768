import Foundation

/// A store's VAT rates in basis points per item type (`1800` is 18%).
public struct VATRates: Hashable, Sendable, Codable {
    public var repair: Int
    public var deviceSale: Int
    public var accessory: Int
    public var devicePurchase: Int
    public var product: Int

    public init(repair: Int, deviceSale: Int, accessory: Int, devicePurchase: Int, product: Int) {
        self.repair = repair
        self.deviceSale = deviceSale
        self.accessory = accessory
        self.devicePurchase = devicePurchase
        self.product = product
    }

    /// Every type at `rate`.
    public init(all rate: Int) {
        self.init(repair: rate, deviceSale: rate, accessory: rate, devicePurchase: rate, product: rate)
    }

    /// Israel's standard rate, 18%, on every type.
    public static let standard = VATRates(all: 1800)

    /// The rate for one item type.
    public func rate(for type: ItemType) -> Int {
        switch type {
        case .repair: return repair
        case .deviceSale: return deviceSale
        case .accessory: return accessory
        case .devicePurchase: return devicePurchase
        case .product: return product
        }
    }

    enum CodingKeys: String, CodingKey {
        case repair, accessory, product
        case deviceSale = "device_sale"
        case devicePurchase = "device_purchase"
    }

    /// Records a problem for each rate outside 0…10000 basis points.
    public func validate(into problems: inout FieldProblems, field: String) {
        for type in ItemType.allCases where !(0...10_000).contains(rate(for: type)) {
            problems.add("\(field).\(type.rawValue)", "must be from 0 to 10000 basis points")
        }
    }
}
