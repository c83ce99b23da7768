public import Domain
import WireContract

/// The payload of `card.linked`: the card, and the customer it was linked to.
public struct CardLinked: Codable, Sendable, Hashable {
    public var card: Card
    public var customer: Customer

    public init(card: Card, customer: Customer) {
        self.card = card
        self.customer = customer
    }
}
