public import Domain
import Foundation
import WireContract

/// A store's shifts, newest first: one user's with `userID`, only the open or the ended ones
/// with `open`.
public struct ShiftListRequest: Codable, Sendable, Hashable {
    public var storeID: StoreID
    public var userID: UserID?
    public var open: Bool?
    public var page: PageRequest

    public init(storeID: StoreID, userID: UserID? = nil, open: Bool? = nil, page: PageRequest = PageRequest()) {
        self.storeID = storeID
        self.userID = userID
        self.open = open
        self.page = page
    }

    enum CodingKeys: String, CodingKey {
        case open, page
        case storeID = "store_id"
        case userID = "user_id"
    }
}
