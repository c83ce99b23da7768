import Foundation

/// One delivery pricing tier: orders of up to `maxBoxes` boxes (no limit when nil) cost `fee`,
/// and count `multiplier` times toward a courier's load.
public struct DeliveryTier: Hashable, Sendable, Codable {
    public var maxBoxes: Int?
    /// In the store's currency's minor units.
    public var fee: Int64
    public var multiplier: Int

    public init(maxBoxes: Int?, fee: Int64, multiplier: Int) {
        self.maxBoxes = maxBoxes
        self.fee = fee
        self.multiplier = multiplier
    }

    enum CodingKeys: String, CodingKey {
        case maxBoxes = "max_boxes"
        case fee, multiplier
    }
}

/// What a delivery costs for a number of boxes.
public struct DeliveryQuote: Hashable, Sendable {
    public var fee: Int64
    public var multiplier: Int

    public init(fee: Int64, multiplier: Int) {
        self.fee = fee
        self.multiplier = multiplier
    }
}

/// What a delivery adds for its distance from the store: up to `maxMetres` (no limit when nil),
/// `fee` more than its boxes' tier.
public struct DistanceTier: Hashable, Sendable, Codable {
    public var maxMetres: Int?
    /// In the store's currency's minor units.
    public var fee: Int64

    public init(maxMetres: Int?, fee: Int64) {
        self.maxMetres = maxMetres
        self.fee = fee
    }

    enum CodingKeys: String, CodingKey {
        case maxMetres = "max_m"
        case fee
    }
}

/// A store's delivery prices by box count: tiers in increasing `maxBoxes`, the last one open;
/// and, beside them, what the distance adds (`byDistance`, tiers in increasing `maxMetres`, the
/// last one open; nothing when absent).
public struct DeliveryPricing: Hashable, Sendable, Codable {
    public var tiers: [DeliveryTier]
    public var byDistance: [DistanceTier]?

    public init(tiers: [DeliveryTier], byDistance: [DistanceTier]? = nil) {
        self.tiers = tiers
        self.byDistance = byDistance
    }

    enum CodingKeys: String, CodingKey {
        case tiers
        case byDistance = "by_distance"
    }

    /// What a delivery `metres` from the store adds to its boxes' fee.
    public func surcharge(forMetres metres: Int) -> Int64 {
        guard let byDistance else { return 0 }
        return byDistance.first { $0.maxMetres.map { metres <= $0 } ?? true }?.fee ?? 0
    }

    /// Up to 8 boxes 35.00 (×1), 9–16 boxes 70.00 (×2), 17 and more 105.00 (×3).
    public static let standard = DeliveryPricing(tiers: [
        DeliveryTier(maxBoxes: 8, fee: 3500, multiplier: 1),
        DeliveryTier(maxBoxes: 16, fee: 7000, multiplier: 2),
        DeliveryTier(maxBoxes: nil, fee: 10_500, multiplier: 3),
    ])

    /// The fee and multiplier for `boxes` (at least 1); nil for fewer boxes than one.
    public func quote(forBoxes boxes: Int) -> DeliveryQuote? {
        guard boxes >= 1 else { return nil }
        for tier in tiers where tier.maxBoxes.map({ boxes <= $0 }) ?? true {
            return DeliveryQuote(fee: tier.fee, multiplier: tier.multiplier)
        }
        return nil
    }

    /// Records what makes these tiers unusable: none, limits not increasing, a last tier with a
    /// limit (some box counts or distances would have no price), negative fees, multipliers
    /// below 1.
    public func validate(into problems: inout FieldProblems, field: String) {
        Self.validate(
            tiers.map { ($0.maxBoxes, $0.fee) }, field: "\(field).tiers", limit: "max_boxes", into: &problems)
        for (index, tier) in tiers.enumerated() where !(1...100).contains(tier.multiplier) {
            problems.add("\(field).tiers[\(index)].multiplier", "must be from 1 to 100")
        }
        if let byDistance {
            Self.validate(
                byDistance.map { ($0.maxMetres, $0.fee) }, field: "\(field).by_distance", limit: "max_m",
                into: &problems)
        }
    }

    /// The rules both kinds of tiers share: 1 to 20 of them, each limit (named `limit`) greater
    /// than the one before, the last one open, fees from 0 to 100000000.
    private static func validate(
        _ tiers: [(limit: Int?, fee: Int64)], field: String, limit: String, into problems: inout FieldProblems
    ) {
        guard !tiers.isEmpty, tiers.count <= 20 else {
            problems.add(field, tiers.isEmpty ? "must list at least one tier" : "must list at most 20 tiers")
            return
        }
        var previous = 0
        for (index, tier) in tiers.enumerated() {
            let name = "\(field)[\(index)]"
            if index == tiers.count - 1 {
                if tier.limit != nil { problems.add("\(name).\(limit)", "must be null on the last tier") }
            } else if let bound = tier.limit {
                if bound <= previous { problems.add("\(name).\(limit)", "must be greater than \(previous)") }
                previous = bound
            } else {
                problems.add("\(name).\(limit)", "is required on every tier but the last")
            }
            if !(0...100_000_000).contains(tier.fee) { problems.add("\(name).fee", "must be from 0 to 100000000") }
        }
    }
}
