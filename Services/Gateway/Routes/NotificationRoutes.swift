import Contracts
import Domain
import Hummingbird
import Wire

/// `GET /v1/notifications?after=&limit=&wait=`, the inbox, from the notifications service:
/// answers at once when there is something after the cursor; otherwise holds the request up to
/// `wait` seconds (at most 30) and answers when a wake-up for the caller arrives, reading the
/// inbox again every `recheck` in case a wake-up was lost.
struct NotificationRoutes: Sendable {
    let notifications: any WireCaller
    let wakeHub: WakeHub
    let recheck: Duration

    func add(to v1: RouterGroup<GatewayContext>) {
        v1.get("notifications") { request, context in
            let options = try context.callOptions(request)
            var query = QueryReader(request)
            let after = query.int("after", in: 0...Int.max) ?? 0
            let limit = query.int("limit", in: 1...PageRequest.maximumLimit)
            let wait = query.int("wait", in: 0...30) ?? 0
            try query.check()
            let list = NotificationListRequest(after: Int64(after), limit: limit)
            let deadline = ContinuousClock.now + .seconds(wait)
            guard let ticket = await wakeHub.enter(try context.principal().userID) else {
                throw OrderlyError(
                    .resourceExhausted,
                    "at most \(WakeHub.maximumPerUser) long-polls wait for one user; let one end first",
                    reason: "too_many_long_polls", details: ["retry_after_seconds": .int(1)])
            }
            defer { Task { await wakeHub.leave(ticket) } }
            while true {
                let page = try await notifications.call(NotificationsAPI.list, list, options: options)
                let remaining = deadline - ContinuousClock.now
                if !page.data.isEmpty || remaining <= .zero { return try JSONBody.response(page) }
                await wakeHub.wait(ticket, timeout: min(remaining, recheck))
            }
        }
    }
}
