import Domain
import Foundation
import WireContract

/// Changes to an endpoint (absent fields are unchanged); turning it on again clears
/// `disabled_reason`.
public struct WebhookChanges: Codable, Sendable, Hashable {
    public var url: String?
    public var events: [String]?
    public var active: Bool?

    public init(url: String? = nil, events: [String]? = nil, active: Bool? = nil) {
        self.url = url
        self.events = events
        self.active = active
    }
}
