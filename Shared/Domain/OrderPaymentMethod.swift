import Foundation

/// How a customer pays for their order: by card in the app, before the store hears of it, or in
/// cash to the courier at the door.
public enum OrderPaymentMethod: String, Hashable, Sendable, Codable, CaseIterable {
    case card
    case cashOnDelivery = "cash_on_delivery"
}
