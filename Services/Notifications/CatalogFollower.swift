import Contracts
import Domain
import Events
import Runtime

/// The catalog's stock events: a product running low or out, to its store's owners and
/// managers.
struct CatalogFollower: NotifyingFollower {
    static let producer = CatalogAPI.service
    static let effects: [String: @Sendable (DomainEvent) throws -> Notifier.Effect] = [
        CatalogAPI.Events.stockLow: stock, CatalogAPI.Events.stockOut: stock,
    ]

    let notifier: Notifier

    private static func stock(_ event: DomainEvent) throws -> Notifier.Effect {
        let product = try event.payload.decode(as: ProductFacts.self)
        let kind = event.type == CatalogAPI.Events.stockOut ? "stock.out" : "stock.low"
        return Notifier.Effect.notify(
            ["product_id": product.id.description, "store_id": product.storeID.description],
            [
                (
                    Audience(storeManagers: product.storeID),
                    Telling("\(kind).title", "\(kind).body", [product.name, "\(product.available)"])
                )
            ])
    }

    /// What the notifications take from a product in a stock event's payload.
    struct ProductFacts: Decodable, Sendable {
        var id: ProductID
        var storeID: StoreID
        var name: String
        var available: Int64

        enum CodingKeys: String, CodingKey {
            case id, name, available
            case storeID = "store_id"
        }
    }
}
