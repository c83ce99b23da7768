/// One choice a customer makes about a product when they order it: a group of options of which
/// they pick from `minSelect` to `maxSelect` (a size: exactly one of three; extras: up to three).
/// Each option adds its `priceDelta` to the product's price.
public struct OptionGroup: Hashable, Sendable, Codable {
    public var id: OptionGroupID
    public var name: String
    public var minSelect: Int
    public var maxSelect: Int
    public var options: [Option]

    public struct Option: Hashable, Sendable, Codable {
        public var id: OptionID
        public var name: String
        /// Added to the product's price when chosen, in the product's currency's minor units.
        public var priceDelta: Int64

        public init(id: OptionID, name: String, priceDelta: Int64) {
            self.id = id
            self.name = name
            self.priceDelta = priceDelta
        }

        enum CodingKeys: String, CodingKey {
            case id, name
            case priceDelta = "price_delta"
        }
    }

    public init(id: OptionGroupID, name: String, minSelect: Int, maxSelect: Int, options: [Option]) {
        self.id = id
        self.name = name
        self.minSelect = minSelect
        self.maxSelect = maxSelect
        self.options = options
    }

    enum CodingKeys: String, CodingKey {
        case id, name, options
        case minSelect = "min_select"
        case maxSelect = "max_select"
    }

    /// The most groups a product has, and options a group has.
    public static let maximumGroups = 20
    public static let maximumOptions = 50
}

/// A product's option group as a client sends it. Ids given are kept (so that a change keeps
/// the ids clients hold), absent ones are made; `min_select` is 0 and `max_select` 1
/// when absent.
public struct OptionGroupDraft: Hashable, Sendable, Codable {
    public var id: OptionGroupID?
    public var name: String?
    public var minSelect: Int?
    public var maxSelect: Int?
    public var options: [OptionDraft]?

    public struct OptionDraft: Hashable, Sendable, Codable {
        public var id: OptionID?
        public var name: String?
        public var priceDelta: Int64?

        public init(id: OptionID? = nil, name: String? = nil, priceDelta: Int64? = nil) {
            self.id = id
            self.name = name
            self.priceDelta = priceDelta
        }

        enum CodingKeys: String, CodingKey {
            case id, name
            case priceDelta = "price_delta"
        }
    }

    public init(
        id: OptionGroupID? = nil, name: String? = nil, minSelect: Int? = nil, maxSelect: Int? = nil,
        options: [OptionDraft]? = nil
    ) {
        self.id = id
        self.name = name
        self.minSelect = minSelect
        self.maxSelect = maxSelect
        self.options = options
    }

    enum CodingKeys: String, CodingKey {
        case id, name, options
        case minSelect = "min_select"
        case maxSelect = "max_select"
    }

    /// The groups `drafts` describe, every problem added to `problems` under `option_groups`:
    /// at most `OptionGroup.maximumGroups` groups of 1 to `OptionGroup.maximumOptions` options,
    /// `0 ≤ min_select ≤ max_select`, `1 ≤ max_select ≤` the options, ids unique in the product
    /// (options' across groups too, so that an option's id alone names it), deltas from 0 to
    /// `maximumDelta`.
    public static func groups(
        _ drafts: [OptionGroupDraft], maximumDelta: Int64, _ problems: inout FieldProblems
    ) -> [OptionGroup] {
        if drafts.count > OptionGroup.maximumGroups {
            problems.add("option_groups", "must hold at most \(OptionGroup.maximumGroups) groups")
        }
        var groupIDs: Set<OptionGroupID> = []
        var optionIDs: Set<OptionID> = []
        return drafts.prefix(OptionGroup.maximumGroups).enumerated().map { index, draft in
            let field = "option_groups[\(index)]"
            let id = draft.id ?? OptionGroupID()
            if !groupIDs.insert(id).inserted { problems.add("\(field).id", "is another group's too") }
            let name = problems.text(draft.name, "\(field).name", maximumLength: 100)
            let options = draft.options ?? []
            if !(1...OptionGroup.maximumOptions).contains(options.count) {
                problems.add("\(field).options", "must hold 1 to \(OptionGroup.maximumOptions) options")
            }
            let count = max(1, options.count)
            let checkedMax = problems.integer(draft.maxSelect, "\(field).max_select", in: 1...count, required: false)
            let maxSelect = checkedMax ?? 1
            // Against the options alone when max_select was refused, so that a good min_select
            // is not reported for a bad max_select.
            let minBound = draft.maxSelect != nil && checkedMax == nil ? count : maxSelect
            let minSelect =
                problems.integer(draft.minSelect, "\(field).min_select", in: 0...minBound, required: false) ?? 0
            let built = options.prefix(OptionGroup.maximumOptions).enumerated().map { position, option in
                let optionField = "\(field).options[\(position)]"
                let optionID = option.id ?? OptionID()
                if !optionIDs.insert(optionID).inserted {
                    problems.add("\(optionField).id", "is another option's too")
                }
                return OptionGroup.Option(
                    id: optionID, name: problems.text(option.name, "\(optionField).name", maximumLength: 100),
                    priceDelta: problems.integer(
                        option.priceDelta, "\(optionField).price_delta", in: 0...maximumDelta, required: false) ?? 0)
            }
            return OptionGroup(id: id, name: name, minSelect: minSelect, maxSelect: maxSelect, options: built)
        }
    }
}
