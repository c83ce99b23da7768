import Contracts
import Domain
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import Wire
import WireCodec

/// The caller's notifications, from the notifications service, three ways over one cursor (the
/// `seq`), and a store's activity feed two ways:
///
/// - `GET /v1/notifications?after=&limit=&wait=`, the inbox: answers at once when there is
///   something after the cursor; otherwise holds the request up to `wait` seconds (at most 30,
///   or `maximumWait`) and answers when a wake-up for the caller arrives.
/// - `GET /v1/notifications/stream`, server-sent events: what is waiting after `Last-Event-ID`
///   (or `after`), then each notification as it is stored, a comment every `heartbeat` while
///   nothing comes; it ends when the access token that opened it expires or its session
///   ends (a password change, deactivation), and at shutdown.
/// - `POST /v1/notifications/read`: read state.
/// - `GET /v1/users/{id}/notifications?after=&limit=`, another user's inbox, and
///   `POST /v1/users/{id}/notifications/{seq}/resend`, one of them pushed to their devices again:
///   for admins and the support desk (a customer's).
/// - `GET /v1/stores/{id}/activity?after=&limit=`, the store's activity after its own cursor,
///   and `GET /v1/stores/{id}/activity/stream`, the same as server-sent events, woken when the
///   owners and managers are (the notifications service wakes them for each entry); an admin's
///   stream finds what is new at each recheck.
///
/// Waiting ones read the inbox again every `recheck` in case a wake-up was lost, and check
/// before each read that the caller's session still stands.
struct NotificationRoutes: Sendable {
    let notifications: any WireCaller
    let wakeHub: WakeHub
    let sessions: Sessions
    let recheck: Duration
    /// The longest a long-poll is held, whatever its `wait`.
    let maximumWait: Duration
    let heartbeat: Duration
    let logger: Logger

    func add(to v1: RouterGroup<GatewayContext>) {
        v1.get("notifications", use: signedIn(inbox))
            .get("notifications/stream", use: signedIn(stream))
            .post("notifications/read", use: signedIn(markRead))
            .get("users/:id/notifications", use: signedIn(inboxOf))
            .post("users/:id/notifications/:seq/resend", use: signedIn(resend))
            .get("stores/:id/activity", use: signedIn(activity))
            .get("stores/:id/activity/stream", use: signedIn(activityStream))
    }

    /// The inbox after the cursor, held up to `wait` seconds while it is empty.
    @Sendable func inbox(_ request: SignedInRequest) async throws -> Response {
        var query = request.query
        let after = query.int("after", in: 0...Int.max) ?? 0
        let limit = query.int("limit", in: 1...PageRequest.maximumLimit)
        let wait = query.int("wait", in: 0...30) ?? 0
        try query.check()
        let list = NotificationListRequest(after: Int64(after), limit: limit)
        let deadline = ContinuousClock.now + min(.seconds(wait), maximumWait)
        let ticket = try await enter(request.principal, .longPoll)
        defer { Task { await wakeHub.leave(ticket) } }
        while true {
            let inbox = try await notifications.call(NotificationsAPI.list, list, options: request.options)
            let remaining = deadline - ContinuousClock.now
            let closing = await wakeHub.isClosed
            if !inbox.data.isEmpty || remaining <= .zero || closing {
                return try JSONBody.response(inbox)
            }
            await wakeHub.wait(ticket, timeout: min(remaining, recheck))
            try await request.checkSession(sessions)
        }
    }

    @Sendable func activity(_ request: SignedInRequest) async throws -> Response {
        var query = request.query
        let list = ActivityRequest(
            storeID: try request.id(as: StoreID.self), after: Int64(query.int("after", in: 0...Int.max) ?? 0),
            limit: query.int("limit", in: 1...PageRequest.maximumLimit))
        try query.check()
        return try JSONBody.response(
            try await notifications.call(NotificationsAPI.activity, list, options: request.options))
    }

    @Sendable func activityStream(_ request: SignedInRequest) async throws -> Response {
        let store = try request.id(as: StoreID.self)
        let (notifications, options) = (self.notifications, request.options)
        return try await stream(request, event: "activity") { after in
            let page = try await notifications.call(
                NotificationsAPI.activity,
                ActivityRequest(storeID: store, after: after, limit: PageRequest.maximumLimit), options: options)
            return StreamPage(
                events: try page.data.map { ($0.seq, try WireJSON.encoder.encode($0)) }, next: page.nextCursor,
                hasMore: page.hasMore)
        }
    }

    @Sendable func markRead(_ request: SignedInRequest) async throws -> Response {
        let body = try await request.decode(NotificationReadRequest.self)
        return try JSONBody.response(
            try await notifications.call(NotificationsAPI.markRead, body, options: request.options))
    }

    /// Another user's inbox after the cursor, at once.
    @Sendable func inboxOf(_ request: SignedInRequest) async throws -> Response {
        var query = request.query
        let list = UserNotificationsRequest(
            userID: try request.id(as: UserID.self), after: Int64(query.int("after", in: 0...Int.max) ?? 0),
            limit: query.int("limit", in: 1...PageRequest.maximumLimit))
        try query.check()
        return try JSONBody.response(
            try await notifications.call(NotificationsAPI.listOf, list, options: request.options))
    }

    /// One of another user's notifications, handed to the pusher again: 202.
    @Sendable func resend(_ request: SignedInRequest) async throws -> Response {
        let user = try request.id(as: UserID.self)
        guard let seq = request.context.parameters.get("seq").flatMap(Int64.init(digits:)) else {
            throw OrderlyError(.notFound, "no such notification")
        }
        let resent = try await notifications.call(
            NotificationsAPI.resend, NotificationResendRequest(userID: user, seq: seq), options: request.options)
        return try JSONBody.response(resent, status: .accepted)
    }

    /// Takes a ticket of `kind` for the caller; 429 when they hold as many as allowed.
    private func enter(_ principal: Principal, _ kind: WakeHub.Kind) async throws -> UInt64 {
        guard let ticket = await wakeHub.enter(principal.userID, kind, courier: principal.role == .courier) else {
            let (what, reason) =
                kind == .stream ? ("streams", ErrorReason.tooManyStreams) : ("long-polls", ErrorReason.tooManyLongPolls)
            throw OrderlyError(
                .resourceExhausted, "at most \(kind.maximumPerUser) \(what) wait for one user; let one end first",
                reason: reason, details: ["retry_after_seconds": .int(1)])
        }
        return ticket
    }

    /// The caller's notifications as an event stream.
    @Sendable func stream(_ request: SignedInRequest) async throws -> Response {
        let (notifications, options) = (self.notifications, request.options)
        return try await stream(request, event: "notification") { after in
            let inbox = try await notifications.call(
                NotificationsAPI.list, NotificationListRequest(after: after, limit: PageRequest.maximumLimit),
                options: options)
            return StreamPage(
                events: try inbox.data.map { ($0.seq, try WireJSON.encoder.encode($0)) }, next: inbox.nextCursor,
                hasMore: inbox.hasMore)
        }
    }

    /// What one read of a stream's source gave: each event's `seq` and JSON, the cursor to read
    /// after next, and whether more wait already.
    struct StreamPage: Sendable {
        var events: [(seq: Int64, json: Data)]
        var next: Int64
        var hasMore: Bool
    }

    /// An event stream of what `read` gives after a cursor (`after`, or `Last-Event-ID`), each
    /// an `event` with its `seq` as `id`. The first read happens before the answer starts, so a
    /// bad cursor or a service that does not answer is an ordinary error response; later
    /// failures end the stream, and the client resumes from the last `id` it received.
    private func stream(
        _ request: SignedInRequest, event: String, read: @escaping @Sendable (Int64) async throws -> StreamPage
    ) async throws -> Response {
        var query = request.query
        var after = Int64(query.int("after", in: 0...Int.max) ?? 0)
        try query.check()
        if let resumed = request.request.headers[.lastEventID] {
            guard let seq = Int64(resumed), seq >= 0 else {
                throw OrderlyError.invalidFields(["Last-Event-ID": "must be the id of an event received, 0 or more"])
            }
            after = seq
        }
        let ends = request.context.accessExpires ?? .distantFuture
        let ticket = try await enter(request.principal, .stream)
        let first: StreamPage
        do {
            first = try await read(after)
        } catch {
            await wakeHub.leave(ticket)
            throw error
        }
        let (wakeHub, sessions, recheck, heartbeat, logger) = (
            self.wakeHub, self.sessions, self.recheck, self.heartbeat, self.logger
        )
        var headers = HTTPFields()
        headers[.contentType] = "text/event-stream"
        headers[.cacheControl] = "no-store"
        // Proxies that buffer answers (nginx) pass this one on as it is written.
        headers[.xAccelBuffering] = "no"
        let body = ResponseBody { [after] writer in
            var (page, after) = (first, after)
            var quietSince = ContinuousClock.now
            var events = ByteBuffer(string: "retry: \(Self.reconnectMilliseconds)\n\n")
            do {
                while true {
                    for (seq, json) in page.events {
                        events.writeString("id: \(seq)\nevent: \(event)\ndata: ")
                        events.writeBytes(json)
                        events.writeString("\n\n")
                    }
                    after = page.next
                    if events.readableBytes > 0 {
                        try await writer.write(events)
                        events.clear()
                        quietSince = ContinuousClock.now
                    }
                    // What was read is sent before the stream ends.
                    if await wakeHub.isClosed || Date() >= ends { break }
                    if !page.hasMore {
                        let quiet = ContinuousClock.now - quietSince
                        if quiet >= heartbeat {
                            try await writer.write(ByteBuffer(string: ": heartbeat\n\n"))
                            quietSince = ContinuousClock.now
                        } else {
                            let untilEnd = Duration.milliseconds(max(0, Int64(ends.timeIntervalSinceNow * 1000)))
                            await wakeHub.wait(ticket, timeout: min(recheck, heartbeat - quiet, untilEnd))
                        }
                    }
                    // A password change or deactivation ends the stream within a recheck.
                    try await request.checkSession(sessions)
                    page = try await read(after)
                }
            } catch {
                // The client went away, or the service stopped answering: the client resumes.
                logger.debug("event stream ended", metadata: ["error": "\(error)", "event": "\(event)"])
            }
            await wakeHub.leave(ticket)
            try? await writer.finish(nil)
        }
        return Response(status: .ok, headers: headers, body: body)
    }

    /// How long a client waits before reconnecting a stream that ended (`retry:`).
    static let reconnectMilliseconds = 2000
}
