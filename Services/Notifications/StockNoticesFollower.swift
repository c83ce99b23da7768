import Contracts
import Domain
import Events
import Runtime

/// The catalog's product events: a product running low or out, to its store's owners and
/// managers; those and a product created, into the store's activity.
struct StockNoticesFollower: NotifyingFollower {
    static let producer = CatalogAPI.service
    static let effects: [String: @Sendable (DomainEvent) throws -> Notifier.Effect] = [
        CatalogAPI.Events.stockLow: stock, CatalogAPI.Events.stockOut: stock,
        CatalogAPI.Events.productCreated: { event in
            let product = try event.payload.decode(as: ProductFacts.self)
            return Notifier.Effect.log(
                Activity(
                    "product_created", in: product.storeID, "activity.product_created.title", "activity.name",
                    [product.name], amount: product.price, currency: product.currency, at: event.occurredAt,
                    data: ["product_id": product.id.description]))
        },
    ]

    let notifier: Notifier

    private static func stock(_ event: DomainEvent) throws -> Notifier.Effect {
        let product = try event.payload.decode(as: ProductFacts.self)
        let kind = event.type == CatalogAPI.Events.stockOut ? "stock.out" : "stock.low"
        let telling = Telling(
            "\(kind).title", "\(kind).body", [product.name, "\(product.available)", "\(product.reserved ?? 0)"])
        return Notifier.Effect.notify(
            ["product_id": product.id.description, "store_id": product.storeID.description],
            [(Audience(storeManagers: product.storeID), telling)],
            activity: Activity(
                "low_stock", in: product.storeID, telling.titleKey, telling.bodyKey, telling.args,
                at: event.occurredAt, data: ["product_id": product.id.description]))
    }

    /// What the notifications take from a product in a stock event's payload.
    struct ProductFacts: Decodable, Sendable {
        var id: ProductID
        var storeID: StoreID
        var name: String
        var available: Int64
        /// Held by reservations: orders and sales not yet paid or ended (the product's JSON
        /// carries it; nil in an event of an earlier release that did not).
        var reserved: Int64?
        /// On `product.created`, for its entry in the store's activity.
        var price: Int64?
        var currency: CurrencyCode?

        enum CodingKeys: String, CodingKey {
            case id, name, available, reserved, price, currency
            case storeID = "store_id"
        }
    }
}
