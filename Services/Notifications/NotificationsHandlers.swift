import Contracts
import Domain
import Runtime
import Storage
import Wire

/// The notifications service's Wire method: the caller's own inbox, read by cursor.
struct NotificationsHandlers: Sendable {
    let notifications: NotificationsRepository

    init(database: Database) {
        self.notifications = NotificationsRepository(database: database)
    }

    func register(in router: inout WireRouter) {
        router.register(NotificationsAPI.list) { request, context in
            try await list(request, principal: context.requirePrincipal())
        }
    }

    /// The caller's notifications after the cursor, oldest first.
    func list(_ request: NotificationListRequest, principal: Principal) async throws -> Page<UserNotification> {
        let limit = try KeysetCursor.limit(request.limit)
        guard request.after >= 0 else { throw OrderlyError.invalidFields(["after": "must be 0 or more"]) }
        let notifications = try await self.notifications.list(
            of: principal.userID, after: request.after, limit: limit + 1)
        let page = Array(notifications.prefix(limit))
        return Page(data: page, nextCursor: notifications.count > limit ? page.last.map { "\($0.seq)" } : nil)
    }
}
