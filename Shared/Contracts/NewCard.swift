public import Domain
import WireContract

/// A card to register in a store.
public struct NewCard: Codable, Sendable, Hashable {
    public var storeID: StoreID
    public var card: CardDraft

    public init(storeID: StoreID, card: CardDraft) {
        self.storeID = storeID
        self.card = card
    }

    enum CodingKeys: String, CodingKey {
        case card
        case storeID = "store_id"
    }
}
