public import Domain
import Foundation
import WireContract

/// A store's menu as customers see it: the store, and its active products by category
/// (categories by name, products without one last; products by name), each with whether it
/// can be sold now but not how many are left.
public struct Menu: Codable, Sendable, Hashable {
    public var store: Store
    public var categories: [Category]
    /// Whether the store has more active products than a menu holds (`maximumItems`, or
    /// `maximumBytes` of them): those last by category (products without one last), then the
    /// newest, are left out.
    public var truncated: Bool

    /// The most products a menu holds.
    public static let maximumItems = 1000
    /// The most the products of a menu take as stored, so that a menu is always within a Wire
    /// frame: a product takes up to `Product.maximumBytes` (its options and description), and an
    /// item of the menu no more than its product.
    public static let maximumBytes = 3 * 1024 * 1024

    public struct Category: Codable, Sendable, Hashable {
        /// Nil for the products without a category.
        public var name: String?
        public var items: [Item]
    }

    public struct Item: Codable, Sendable, Hashable {
        public var id: ProductID
        public var name: String
        public var price: Int64
        public var currency: CurrencyCode
        public var emoji: String?
        public var iconID: String?
        public var imageURL: String?
        public var description: String?
        /// What the customer chooses when ordering it.
        public var optionGroups: [OptionGroup]
        public var canSell: Bool

        enum CodingKeys: String, CodingKey {
            case id, name, price, currency, emoji, description
            case iconID = "icon_id"
            case imageURL = "image_url"
            case optionGroups = "option_groups"
            case canSell = "can_sell"
        }

        /// Read from a catalog of before options as having none.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            id = try container.decode(ProductID.self, forKey: .id)
            name = try container.decode(String.self, forKey: .name)
            price = try container.decode(Int64.self, forKey: .price)
            currency = try container.decode(CurrencyCode.self, forKey: .currency)
            emoji = try container.decodeIfPresent(String.self, forKey: .emoji)
            iconID = try container.decodeIfPresent(String.self, forKey: .iconID)
            imageURL = try container.decodeIfPresent(String.self, forKey: .imageURL)
            description = try container.decodeIfPresent(String.self, forKey: .description)
            optionGroups = try container.decodeIfPresent([OptionGroup].self, forKey: .optionGroups) ?? []
            canSell = try container.decode(Bool.self, forKey: .canSell)
        }

        init(_ product: Product) {
            id = product.id
            name = product.name
            price = product.price
            currency = product.currency
            emoji = product.emoji
            iconID = product.iconID
            imageURL = product.imageURL
            description = product.description
            optionGroups = product.optionGroups
            canSell = product.canSell
        }
    }

    enum CodingKeys: String, CodingKey {
        case store, categories, truncated
    }

    /// Read from a catalog of before `truncated` (a rolling upgrade) as not truncated.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        store = try container.decode(Store.self, forKey: .store)
        categories = try container.decode([Category].self, forKey: .categories)
        truncated = try container.decodeIfPresent(Bool.self, forKey: .truncated) ?? false
    }

    /// The menu of `store` from its products; inactive ones are left out, and those beyond
    /// `maximumItems` when `truncated`.
    public init(store: Store, products: [Product], truncated: Bool = false) {
        self.store = store
        self.truncated = truncated
        let active = products.filter(\.active)
        let groups = Dictionary(grouping: active, by: \.category)
        let names = groups.keys.sorted { left, right in
            switch (left, right) {
            case (let left?, let right?): left.localizedStandardCompare(right) == .orderedAscending
            case (.some, nil): true
            case (nil, _): false
            }
        }
        categories = names.map { name in
            let items = (groups[name] ?? []).sorted { $0.name.localizedStandardCompare($1.name) == .orderedAscending }
                .map(Item.init)
            return Category(name: name, items: items)
        }
    }
}
