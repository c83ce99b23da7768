import Contracts
import Domain
import Foundation
import Runtime
import Storage
import Wire

/// The notifications service's Wire methods: the caller's own inbox, read by cursor, and its
/// read state.
struct NotificationsHandlers: Sendable {
    let notifications: NotificationsRepository

    init(database: Database) {
        self.notifications = NotificationsRepository(database: database)
    }

    func register(in router: inout WireRouter) {
        router.register(NotificationsAPI.list) { request, context in
            try await list(request, principal: context.requirePrincipal())
        }
        router.register(NotificationsAPI.markRead) { request, context in
            try await markRead(request, principal: context.requirePrincipal())
        }
    }

    /// The caller's notifications after the cursor, oldest first.
    func list(_ request: NotificationListRequest, principal: Principal) async throws -> NotificationInbox {
        let limit = try KeysetCursor.limit(request.limit)
        guard request.after >= 0 else { throw OrderlyError.invalidFields(["after": "must be 0 or more"]) }
        let (notifications, unread) = try await self.notifications.list(
            of: principal.userID, courier: principal.role == .courier, after: request.after, limit: limit + 1)
        let page = Array(notifications.prefix(limit))
        return NotificationInbox(
            data: page, nextCursor: page.last?.seq ?? request.after, hasMore: notifications.count > limit,
            unreadCount: unread)
    }

    /// Marks the caller's notifications up to a `seq`, or those named, read.
    func markRead(_ request: NotificationReadRequest, principal: Principal) async throws -> NotificationReadState {
        var problems = FieldProblems()
        switch (request.upToSeq, request.ids) {
        case (nil, nil):
            problems.add("up_to_seq", "give up_to_seq or ids")
        case (.some, .some):
            problems.add("ids", "give up_to_seq or ids, not both")
        case (let seq?, nil):
            if seq < 1 { problems.add("up_to_seq", "must be 1 or more") }
        case (nil, let ids?):
            if ids.isEmpty || ids.count > NotificationReadRequest.maximumIDs {
                problems.add("ids", "must name 1 to \(NotificationReadRequest.maximumIDs) notifications")
            }
        }
        try problems.check()
        return try await notifications.markRead(
            of: principal.userID, courier: principal.role == .courier, upTo: request.upToSeq, ids: request.ids,
            at: Date.currentMillisecond)
    }
}
