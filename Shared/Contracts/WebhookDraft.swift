public import Domain
import Foundation
import WireContract

/// A new endpoint of `store_id`: an `https` (or `http`) URL, the event types it hears of
/// (at least one of `WebhooksAPI.eventTypes`), active unless said otherwise.
public struct WebhookDraft: Codable, Sendable, Hashable {
    public var storeID: StoreID?
    public var url: String?
    public var events: [String]?
    public var active: Bool?

    public init(storeID: StoreID?, url: String?, events: [String]?, active: Bool? = nil) {
        self.storeID = storeID
        self.url = url
        self.events = events
        self.active = active
    }

    enum CodingKeys: String, CodingKey {
        case url, events, active
        case storeID = "store_id"
    }

    /// The checked request, every bad field named at once: the endpoint's URL (`url(_:…)`,
    /// trimmed), its event types (`events(_:…)`), its store, and whether it starts active (yes
    /// unless said otherwise). `allowingHTTP` is whether the deployment lets endpoints be plain
    /// `http`; `permits` answers whether a host written as a literal IP address may be
    /// delivered to (a name is checked when it is resolved, at delivery).
    public func validated(
        allowingHTTP: Bool, permits: (_ addressHost: String) -> Bool
    ) throws(OrderlyError) -> (storeID: StoreID, url: String, events: [String], active: Bool) {
        var problems = FieldProblems()
        let url = Self.url(url, required: true, allowingHTTP: allowingHTTP, permits: permits, into: &problems)
        let events = Self.events(events, required: true, into: &problems)
        let store = problems.required(storeID, "store_id")
        guard let url, let events, let store, problems.isEmpty else { throw problems.failure }
        return (store, url, events, active ?? true)
    }

    /// An endpoint's URL, trimmed: `https` (or `http`, when `allowingHTTP`), a host, no
    /// credentials or fragment, at most 2,048 characters; a literal address must be one
    /// `permits` lets deliveries go to. Nil, with the problem recorded under `url`, when it is
    /// wrong, or absent (a problem only when `required`).
    static func url(
        _ text: String?, required: Bool, allowingHTTP: Bool, permits: (_ addressHost: String) -> Bool,
        into problems: inout FieldProblems
    ) -> String? {
        guard let text = text?.trimmingWhitespace(), !text.isEmpty else {
            if required { problems.add("url", "is required") }
            return nil
        }
        guard text.utf8.count <= 2048, let components = URLComponents(string: text),
            let scheme = components.scheme?.lowercased(), ["http", "https"].contains(scheme),
            var host = components.host, !host.isEmpty, components.user == nil, components.password == nil,
            components.fragment == nil
        else {
            let schemes = allowingHTTP ? "an http or https" : "an https"
            problems.add("url", "must be \(schemes) URL with a host, without credentials or a fragment")
            return nil
        }
        guard scheme == "https" || allowingHTTP && scheme == "http" else {
            problems.add("url", "must be https: a plain http endpoint would let anyone on the way read the events")
            return nil
        }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        if !permits(host) {
            problems.add("url", "must not point at a private, loopback, link-local or metadata address")
            return nil
        }
        return text
    }

    /// An endpoint's event types: at least one, each of `WebhooksAPI.eventTypes` and at most
    /// once. Nil, with the problem recorded under `events`, when they are wrong, or absent (a
    /// problem only when `required`).
    static func events(_ events: [String]?, required: Bool, into problems: inout FieldProblems) -> [String]? {
        guard let events else {
            if required { problems.add("events", "is required") }
            return nil
        }
        let unknown = events.filter { !WebhooksAPI.eventTypes.contains($0) }
        guard !events.isEmpty, unknown.isEmpty, Set(events).count == events.count else {
            problems.add(
                "events",
                "must name each at most once, at least one, of \(WebhooksAPI.eventTypes.joined(separator: ", "))")
            return nil
        }
        return events
    }
}
