import Domain
import Foundation
import WireContract

/// A page of the stores the caller sees (`limit`, `cursor`, as `PageRequest`, whose body it
/// extends); with `openNow`, only those open now by their opening hours.
public struct StoreListRequest: Codable, Sendable, Hashable {
    public var openNow: Bool?
    public var limit: Int?
    public var cursor: String?

    public init(openNow: Bool? = nil, limit: Int? = nil, cursor: String? = nil) {
        self.openNow = openNow
        self.limit = limit
        self.cursor = cursor
    }

    enum CodingKeys: String, CodingKey {
        case limit, cursor
        case openNow = "open_now"
    }
}
