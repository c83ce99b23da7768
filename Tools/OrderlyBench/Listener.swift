import AsyncHTTPClient
import Contracts
import Domain
import Foundation
import Histogram
import NIOCore
import Synchronization

/// One signed-in store user, listening on one channel from the last `seq` they saw.
struct Listener: Sendable {
    enum Channel: String, Sendable {
        case stream = "stream", longPoll = "long-poll"
    }

    var store: Int
    var token: String
    var channel: Channel

    /// Listens until cancelled, resuming from the last `seq` after any failure.
    func listen(_ api: API, index: Int, arrivals: Arrivals) async {
        var after: Int64 = 0
        var counted = false
        while !Task.isCancelled {
            do {
                switch channel {
                case .stream:
                    var request = HTTPClientRequest(url: api.base + "/v1/notifications/stream?after=\(after)")
                    request.headers.add(name: "Authorization", value: "Bearer \(token)")
                    let response = try await api.http.execute(request, timeout: .seconds(3600))
                    guard response.status == .ok else { throw LoadGenError("stream answered \(response.status)") }
                    if !counted { arrivals.started() }
                    counted = true
                    var pending = ""
                    for try await buffer in response.body {
                        pending += String(buffer: buffer)
                        while let end = pending.range(of: "\n\n") {
                            let block = pending[..<end.lowerBound]
                            pending.removeSubrange(..<end.upperBound)
                            guard let data = block.split(separator: "\n").first(where: { $0.hasPrefix("data: ") })
                            else { continue }
                            let notification = try API.decoder.decode(
                                UserNotification.self, from: Data(data.dropFirst(6).utf8))
                            after = max(after, notification.seq)
                            arrivals.arrived(notification, listener: index)
                        }
                    }
                case .longPoll:
                    if !counted { arrivals.started() }
                    counted = true
                    let reply = try await api.send(
                        .GET, "/v1/notifications?after=\(after)&wait=30&limit=200", token: token)
                    guard reply.status == 200 else { throw LoadGenError("long-poll answered \(reply.status)") }
                    let inbox = try reply.decode(NotificationInbox.self)
                    for notification in inbox.data { arrivals.arrived(notification, listener: index) }
                    after = inbox.nextCursor
                }
            } catch {
                if Task.isCancelled { return }
                try? await Task.sleep(for: .milliseconds(200))
            }
        }
    }
}

/// The orders the run created, with their store and commit time.
final class CreatedOrders: Sendable {
    let state = Mutex<[(id: String, store: Int, createdAt: Date)]>([])
}

/// What arrived where and when.
final class Arrivals: Sendable {
    struct Arrival: Sendable {
        var listener: Int
        var order: String
        var at: Date
    }

    private struct State {
        var all: [Arrival] = []
        var distinct = Set<String>()
        var listening = 0
    }
    private let state = Mutex(State())

    func started() { state.withLock { $0.listening += 1 } }

    func arrived(_ notification: UserNotification, listener: Int) {
        guard notification.type == OrdersAPI.Events.created, let order = notification.data["order_id"] else { return }
        let now = Date()
        state.withLock {
            $0.all.append(Arrival(listener: listener, order: order, at: now))
            $0.distinct.insert("\(listener) \(order)")
        }
    }

    var all: [Arrival] { state.withLock { $0.all } }
    var distinct: Int { state.withLock { $0.distinct.count } }
    var listening: Int { state.withLock { $0.listening } }
}
