public import Domain
import Foundation
import WireContract

/// One delivery of one endpoint.
public struct WebhookDeliveryRef: Codable, Sendable, Hashable {
    public var webhookID: WebhookID
    public var deliveryID: WebhookDeliveryID

    public init(webhookID: WebhookID, deliveryID: WebhookDeliveryID) {
        self.webhookID = webhookID
        self.deliveryID = deliveryID
    }
}
