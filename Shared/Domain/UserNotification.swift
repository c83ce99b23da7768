public import Foundation

/// One entry of a user's inbox. `seq` increases with every notification stored, so a client
/// reads what is new with `after=<last seq seen>`.
public struct UserNotification: Hashable, Sendable, Codable {
    public var seq: Int64
    public var id: UUID
    public var userID: UserID
    /// The event it tells about: `order.created`.
    public var type: String
    /// The title and body, written in the user's locale.
    public var title: String
    public var body: String
    /// The keys of the title's and body's texts and their arguments (`{0}`, `{1}`, …), for apps
    /// that render their own; absent on notifications stored before they were kept.
    public var titleKey: String?
    public var bodyKey: String?
    public var args: [String]?
    /// Ids to open: `{"order_id": "…", "store_id": "…"}`.
    public var data: [String: String]
    public var createdAt: Date
    public var readAt: Date?

    public init(
        seq: Int64, id: UUID, userID: UserID, type: String, title: String, body: String, titleKey: String? = nil,
        bodyKey: String? = nil, args: [String]? = nil, data: [String: String], createdAt: Date, readAt: Date?
    ) {
        self.seq = seq
        self.id = id
        self.userID = userID
        self.type = type
        self.title = title
        self.body = body
        self.titleKey = titleKey
        self.bodyKey = bodyKey
        self.args = args
        self.data = data
        self.createdAt = createdAt
        self.readAt = readAt
    }

    enum CodingKeys: String, CodingKey {
        case seq, id, type, title, body, data, args
        case userID = "user_id"
        case titleKey = "title_key"
        case bodyKey = "body_key"
        case createdAt = "created_at"
        case readAt = "read_at"
    }
}
