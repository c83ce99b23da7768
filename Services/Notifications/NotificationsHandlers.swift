import Contracts
import Domain
import Foundation
import Runtime
import Storage
import Wire

/// The notifications service's Wire methods: the caller's own inbox, read by cursor, and its
/// read state; another user's inbox, and a resend of one of its notifications to their devices,
/// for those who tend it (`AccessPolicy.canTendNotifications`).
struct NotificationsHandlers: Sendable {
    let notifications: NotificationsRepository
    let devices: DevicesRepository
    /// Nil when pushes are not configured.
    let pusher: PushSender?

    init(database: Database, devices: DevicesRepository, pusher: PushSender?) {
        self.notifications = NotificationsRepository(database: database)
        self.devices = devices
        self.pusher = pusher
    }

    func register(in router: inout WireRouter) {
        router.register(NotificationsAPI.list) { request, context in
            try await list(request, principal: context.requirePrincipal())
        }
        router.register(NotificationsAPI.markRead) { request, context in
            try await markRead(request, principal: context.requirePrincipal())
        }
        router.register(NotificationsAPI.listOf) { request, context in
            let role = try await tended(request.userID, by: context.requirePrincipal())
            return try await inbox(
                of: request.userID, courier: role == .courier, after: request.after, limit: request.limit)
        }
        router.register(NotificationsAPI.resend) { request, context in
            try await resend(request, principal: context.requirePrincipal())
        }
    }

    /// The caller's notifications after the cursor, oldest first.
    func list(_ request: NotificationListRequest, principal: Principal) async throws -> NotificationInbox {
        try await inbox(
            of: principal.userID, courier: principal.role == .courier, after: request.after, limit: request.limit)
    }

    /// `user`'s notifications after the cursor, oldest first (a courier's with the broadcasts of
    /// their spells on duty).
    private func inbox(of user: UserID, courier: Bool, after: Int64, limit: Int?) async throws -> NotificationInbox {
        let limit = try KeysetCursor.limit(limit)
        guard after >= 0 else { throw OrderlyError.invalidFields(["after": "must be 0 or more"]) }
        let (notifications, unread) = try await self.notifications.list(
            of: user, courier: courier, after: after, limit: limit + 1)
        let page = Array(notifications.prefix(limit))
        return NotificationInbox(
            data: page, nextCursor: page.last?.seq ?? after, hasMore: notifications.count > limit,
            unreadCount: unread)
    }

    /// The role of `user`, whose notifications the caller tends; `not_found` for a user whose
    /// notifications are not theirs to tend, as for one who does not exist.
    private func tended(_ user: UserID, by principal: Principal) async throws -> Role {
        guard let role = try await notifications.role(of: user),
            AccessPolicy(principal).canTendNotifications(of: user, role: role)
        else { throw OrderlyError(.notFound, "no user \(user)") }
        return role
    }

    /// Hands one of a user's own notifications (not one told to every courier on duty) to the
    /// pusher again; answers with it and how many devices it goes to. 422 `push_disabled` when
    /// pushes are not configured.
    func resend(_ request: NotificationResendRequest, principal: Principal) async throws -> NotificationResent {
        _ = try await tended(request.userID, by: principal)
        guard let pusher else {
            throw OrderlyError(
                .pushDisabled, "pushes are not configured on this suite")
        }
        guard request.seq >= 1, let found = try await notifications.notification(of: request.userID, seq: request.seq)
        else { throw OrderlyError(.notFound, "no notification \(request.seq) of user \(request.userID)") }
        let devices = try await devices.devices(of: [request.userID]).count
        pusher.push([found.stored])
        return NotificationResent(
            notification: found.stored.message.notification(
                seq: found.stored.seq, id: found.stored.id, of: request.userID, readAt: found.readAt),
            devices: devices)
    }

    /// Marks the caller's notifications up to a `seq`, or those named, read.
    func markRead(_ request: NotificationReadRequest, principal: Principal) async throws -> NotificationReadState {
        let (upToSeq, ids) = try request.validated()
        return try await notifications.markRead(
            of: principal.userID, courier: principal.role == .courier, upTo: upToSeq, ids: ids,
            at: Date.currentMillisecond)
    }
}
