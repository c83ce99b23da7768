public import Domain
public import Wire

/// The notifications service's methods.
public enum NotificationsAPI {
    public static let service = "notifications"
    /// The caller's own notifications after a cursor, oldest first.
    public static let list = WireMethod<NotificationListRequest, Page<UserNotification>>(
        "notifications.list", safeToRetry: true)
}

/// Notifications with `seq` greater than `after`, at most `limit` (1–200, default 50).
public struct NotificationListRequest: Codable, Sendable, Hashable {
    public var after: Int64
    public var limit: Int?

    public init(after: Int64, limit: Int? = nil) {
        self.after = after
        self.limit = limit
    }
}

/// What the notifications service publishes on `orderly:wake` after storing notifications,
/// so that a gateway holding one of those users' long-polls answers at once. One message, a
/// JSON array of these, carries every user an event notified.
public struct WakeUp: Codable, Sendable, Hashable {
    public var userID: UserID
    public var seq: Int64

    public init(userID: UserID, seq: Int64) {
        self.userID = userID
        self.seq = seq
    }

    enum CodingKeys: String, CodingKey {
        case seq
        case userID = "user_id"
    }

    /// The pub/sub channel.
    public static let channel = "orderly:wake"

    /// A message: the JSON array of the wake-ups, `[{"seq":…,"user_id":"…"},…]`, written
    /// directly (thousands a second go out under load).
    public static func message(_ wakeUps: [WakeUp]) -> [UInt8] {
        var text = "["
        for (index, wakeUp) in wakeUps.enumerated() {
            text += index == 0 ? "{\"seq\":" : ",{\"seq\":"
            text += String(wakeUp.seq) + ",\"user_id\":\"" + wakeUp.userID.description + "\"}"
        }
        return Array((text + "]").utf8)
    }

    /// The wake-ups in a message; nil when it is not one (other fields are ignored).
    public static func wakeUps(in message: [UInt8]) -> [WakeUp]? {
        message.withUnsafeBytes { bytes in
            var scanner = JSONScanner(bytes)
            var wakeUps: [WakeUp] = []
            do {
                try scanner.readArray { scanner in
                    var userID: UserID?
                    var seq: Int64?
                    try scanner.readObject { scanner, key in
                        switch key {
                        case "user_id": userID = UserID(try scanner.readString())
                        case "seq": seq = try scanner.readInteger()
                        default: _ = try scanner.skipValue()
                        }
                    }
                    guard let userID, let seq else {
                        throw JSONScanner.Failure.syntax("not a wake-up", at: scanner.offset)
                    }
                    wakeUps.append(WakeUp(userID: userID, seq: seq))
                }
                try scanner.expectEnd()
            } catch {
                return nil
            }
            return wakeUps
        }
    }
}

/// The stream the gateway's identity events go to (`user.created`, `user.updated`).
public enum IdentityEvents {
    public static let service = "identity"
    public static let userCreated = "user.created"
    public static let userUpdated = "user.updated"
}
