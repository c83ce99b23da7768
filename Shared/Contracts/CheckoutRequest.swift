public import Domain
import Foundation
import WireContract

/// A customer's checkout as the gateway forwards it: the draft (a saved address already put in
/// place of `address_id`) and the customer, from their profile.
public struct CheckoutRequest: Codable, Sendable, Hashable {
    public var draft: CheckoutDraft
    public var customer: CheckoutCustomer

    public init(draft: CheckoutDraft, customer: CheckoutCustomer) {
        self.draft = draft
        self.customer = customer
    }
}
