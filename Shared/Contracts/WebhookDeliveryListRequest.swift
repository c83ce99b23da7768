public import Domain
import Foundation
import WireContract

/// An endpoint's deliveries, newest first.
public struct WebhookDeliveryListRequest: Codable, Sendable, Hashable {
    public var webhookID: WebhookID
    public var page: PageRequest

    public init(webhookID: WebhookID, page: PageRequest) {
        self.webhookID = webhookID
        self.page = page
    }
}
