import Domain
import Foundation
import WireContract

/// A page of the stores the caller sees (`limit`, `cursor`, `count`, as `PageRequest`, whose
/// body it extends); with `openNow`, only those open now by their opening hours.
public struct StoreListRequest: Codable, Sendable, Hashable {
    public var openNow: Bool?
    public var limit: Int?
    public var cursor: String?
    public var count: Bool?

    public init(openNow: Bool? = nil, limit: Int? = nil, cursor: String? = nil, count: Bool? = nil) {
        self.openNow = openNow
        self.limit = limit
        self.cursor = cursor
        self.count = count
    }

    enum CodingKeys: String, CodingKey {
        case limit, cursor, count
        case openNow = "open_now"
    }
}
