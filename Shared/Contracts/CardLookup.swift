public import Domain
import WireContract

/// A tapped card and the customer it pays for, if any.
public struct CardLookup: Codable, Sendable, Hashable {
    public var card: Card
    public var customer: Customer?

    public init(card: Card, customer: Customer?) {
        self.card = card
        self.customer = customer
    }
}
