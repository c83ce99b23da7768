public import Domain
import Foundation
import WireContract

/// A page of the stores the caller sees (`limit`, `cursor`, `count`, as `PageRequest`, whose
/// body it extends); with `openNow`, only those open now by their opening hours.
public struct StoreListRequest: Codable, Sendable, Hashable {
    /// How a list of stores is ordered: by creation (unless said), or nearest first.
    public enum Sort: String, Codable, Sendable, Hashable, CaseIterable {
        case distance
    }

    public var openNow: Bool?
    /// The place a customer would be delivered at: only the stores that deliver there, each with
    /// its distance and delivery fee.
    public var near: GeoPoint?
    /// What was typed into a search box: stores whose name, cuisine or dishes have words
    /// beginning with each of its words.
    public var query: String?
    /// One cuisine, as a store names it (any case).
    public var cuisine: String?
    public var sort: Sort?
    public var limit: Int?
    public var cursor: String?
    public var count: Bool?

    public init(
        openNow: Bool? = nil, near: GeoPoint? = nil, query: String? = nil, cuisine: String? = nil, sort: Sort? = nil,
        limit: Int? = nil, cursor: String? = nil, count: Bool? = nil
    ) {
        self.openNow = openNow
        self.near = near
        self.query = query
        self.cuisine = cuisine
        self.sort = sort
        self.limit = limit
        self.cursor = cursor
        self.count = count
    }

    enum CodingKeys: String, CodingKey {
        case limit, cursor, count, near, cuisine, sort
        case query = "q"
        case openNow = "open_now"
    }
}
