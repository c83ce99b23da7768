public import Domain
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

    /// The checked changes, every bad field named at once: a new URL (`WebhookDraft.url(_:…)`,
    /// trimmed; a blank one counts as absent), new event types (`WebhookDraft.events(_:…)`),
    /// and whether the endpoint is to be active; nil for what does not change. `allowingHTTP`
    /// and `permits` are the deployment's rules for endpoints, as for `WebhookDraft.validated`.
    public func validated(
        allowingHTTP: Bool, permits: (_ addressHost: String) -> Bool
    ) throws(OrderlyError) -> (url: String?, events: [String]?, active: Bool?) {
        var problems = FieldProblems()
        let url = WebhookDraft.url(url, required: false, allowingHTTP: allowingHTTP, permits: permits, into: &problems)
        let events = WebhookDraft.events(events, required: false, into: &problems)
        try problems.check()
        return (url, events, active)
    }
}
