import AsyncHTTPClient
import Contracts
import Domain
import Foundation
import Histogram
import NIOCore
import Synchronization

/// `orderly loadgen --workload notifications`: how fast a new order reaches its store's users,
/// by channel.
///
/// `--users` store users over `--stores` stores sign in; half hold a server-sent event stream
/// (`GET /v1/notifications/stream`), half long-poll (`GET /v1/notifications?wait=30`), each
/// from the `seq` it saw last; the first `--webhooks` stores get a webhook endpoint for
/// `order.created` on a receiver run here, which checks each delivery's signature. Orders are
/// created at `--rate` a second for `--seconds`, spread over the stores; every store user, and
/// every endpoint, hears of each order of their store. Latency runs from the order's
/// `created_at` (taken in the transaction that commits it) to the arrival at the client. Then
/// the run waits (up to `--inbox-wait` seconds) until everything has arrived: what never came is
/// `lost`, what came twice `duplicated`.
extension LoadGen {
    func driveNotifications(_ api: API) async throws -> Int {
        let password = ProcessInfo.processInfo.environment[adminPasswordVariable]!
        let perStore = max(1, users / stores)
        say("setting up \(stores) stores with \(perStore) users each, signed in")
        let admin = try await Cast.login(api, adminEmail, password)
        let run = UUID().uuidString.prefix(8).lowercased()
        var listeners: [Listener] = []
        var storeIDs: [StoreID] = []
        for store in 0..<stores {
            let created = try await api.require(
                [201], .POST, "/v1/stores", token: admin, body: ["name": "Loadgen \(run) store \(store + 1)"]
            ).decode(Cast.Created.self)
            storeIDs.append(StoreID(created.id)!)
            for member in 0..<perStore {
                let email = "loadgen-\(run)-\(store)-\(member)@orderly.test"
                _ = try await api.require(
                    [201], .POST, "/v1/users", token: admin,
                    body: [
                        "email": email, "password": "loadgen-password", "name": "User \(member)", "role": "staff",
                        "store_id": created.id,
                    ])
                let token = try await Cast.login(api, email, "loadgen-password")
                listeners.append(
                    Listener(store: store, token: token, channel: listeners.count % 2 == 0 ? .stream : .longPoll))
            }
            if (store + 1) % 10 == 0 { say("  \(store + 1) stores ready") }
        }

        let sink = try await WebhookSink.start()
        defer { Task { await sink.stop() } }
        if webhooks > 0 {
            say("registering \(webhooks) webhook endpoints on \(sink.url(0).dropLast(2))")
            for (index, store) in storeIDs.prefix(webhooks).enumerated() {
                let endpoint = try await api.require(
                    [201], .POST, "/v1/stores/\(store)/webhooks", token: admin,
                    body: WebhookDraft(storeID: nil, url: sink.url(index), events: [OrdersAPI.Events.created])
                ).decode(Webhook.self)
                guard let secret = endpoint.secret else { throw LoadGenError("a new webhook came without its secret") }
                sink.expect(index, secret: secret)
            }
        }

        let arrivals = Arrivals()
        let everyone = listeners
        say("opening \(listeners.count / 2 + listeners.count % 2) streams and \(listeners.count / 2) long-polls")
        let listening = Task {
            await withTaskGroup(of: Void.self) { group in
                for (index, listener) in everyone.enumerated() {
                    group.addTask { await listener.listen(api, index: index, arrivals: arrivals) }
                }
            }
        }
        defer { listening.cancel() }
        let ready = await waitFor(seconds: 60) { arrivals.listening == listeners.count }
        guard ready else { throw LoadGenError("only \(arrivals.listening) of \(listeners.count) listeners started") }

        say("creating \(rate) orders a second for \(seconds)s")
        let machine = CPUTimes.now()
        // The first user of each store creates its orders.
        let creators = Array(stride(from: 0, to: listeners.count, by: perStore))
        let orders = CreatedOrders()
        let total = Int(Double(rate) * seconds)
        let started = ContinuousClock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            for number in 0..<total {
                try? await Task.sleep(until: started + .milliseconds(number * 1000 / rate))
                let creator = everyone[creators[number % creators.count]]
                group.addTask {
                    let reply = try await api.send(
                        .POST, "/v1/orders", token: creator.token, body: Self.orderBody(number),
                        headers: [("Idempotency-Key", "notifications-\(number)")])
                    guard reply.status == 201 else {
                        throw LoadGenError("POST /v1/orders answered \(reply.status): \(reply.text.prefix(300))")
                    }
                    let order = try reply.decode(CreatedOrder.self)
                    orders.state.withLock { $0.append((order.id, creator.store, order.createdAt)) }
                }
            }
            try await group.waitForAll()
        }
        say("  " + (machine.machineShares(until: CPUTimes.now()) ?? "no /proc/stat"))

        let created = orders.state.withLock { $0 }
        let expected = created.count * perStore
        let expectedHooks = created.filter { $0.store < webhooks }.count
        say("waiting for \(expected) notifications and \(expectedHooks) webhook deliveries to arrive")
        _ = await waitFor(seconds: inboxWait) {
            arrivals.distinct >= expected && Set(sink.deliveries.map(\.subject)).count >= expectedHooks
        }
        listening.cancel()

        let createdAt = Dictionary(uniqueKeysWithValues: created.map { ($0.id, $0.createdAt) })
        let storeOf = Dictionary(uniqueKeysWithValues: created.map { ($0.id, $0.store) })
        var histograms: [Listener.Channel: Histogram<UInt64>] = [:]
        var (received, duplicated) = (0, 0)
        var seen = Set<String>()
        for arrival in arrivals.all {
            guard let at = createdAt[arrival.order], storeOf[arrival.order] == listeners[arrival.listener].store
            else { continue }
            guard seen.insert("\(arrival.listener) \(arrival.order)").inserted else {
                duplicated += 1
                continue
            }
            received += 1
            let micros = UInt64(max(0, arrival.at.timeIntervalSince(at)) * 1_000_000)
            histograms[listeners[arrival.listener].channel, default: Histogram(highestTrackableValue: 600_000_000)]
                .record(min(micros, 600_000_000))
        }
        var hooks = Histogram<UInt64>(highestTrackableValue: 600_000_000)
        var hooked = Set<String>()
        for delivery in sink.deliveries {
            guard let at = createdAt[delivery.subject], storeOf[delivery.subject] == delivery.endpoint else { continue }
            guard hooked.insert(delivery.subject).inserted else {
                duplicated += 1
                continue
            }
            hooks.record(min(UInt64(max(0, delivery.at.timeIntervalSince(at)) * 1_000_000), 600_000_000))
        }
        let lost = expected - received + expectedHooks - hooked.count
        func percentile(_ channel: Listener.Channel, _ p: Double) -> Double {
            histograms[channel].map { Double($0.valueAtPercentile(p)) / 1000 } ?? 0
        }
        let webhookP99 = Double(hooks.valueAtPercentile(99)) / 1000
        for channel in [Listener.Channel.stream, .longPoll] {
            say(
                String(
                    format: "  %@: %d notifications, p50 %.1f ms, p99 %.1f ms, max %.1f ms", channel.rawValue,
                    histograms[channel]?.totalCount ?? 0, percentile(channel, 50), percentile(channel, 99),
                    histograms[channel].map { Double($0.max) / 1000 } ?? 0))
        }
        if webhooks > 0 {
            say(
                String(
                    format: "  webhook: %d deliveries, p50 %.1f ms, p99 %.1f ms, max %.1f ms; %d badly signed",
                    hooks.totalCount, Double(hooks.valueAtPercentile(50)) / 1000, webhookP99,
                    Double(hooks.max) / 1000, sink.badSignatures))
        }
        say(
            "orders=\(created.count) expected=\(expected + expectedHooks) received=\(received + hooked.count) "
                + "duplicated=\(duplicated)")
        say(
            String(
                format: "sse_p99_ms=%.1f longpoll_p99_ms=%.1f webhook_p99_ms=%.1f lost=%d", percentile(.stream, 99),
                percentile(.longPoll, 99), webhookP99, lost))
        return lost + duplicated + sink.badSignatures
    }

    /// Returns once `condition` holds, or after `seconds`; whether it held.
    private func waitFor(seconds: Double, _ condition: () -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        while !condition() {
            guard ContinuousClock.now < deadline else { return false }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return true
    }

    static func orderBody(_ number: Int) -> OrderDraft {
        OrderDraft(
            fulfillment: .pickup, recipientFirstName: "Load", recipientLastName: "Gen \(number)", phone: "050-0000000",
            boxesCount: 1)
    }

    struct CreatedOrder: Decodable {
        var id: String
        var createdAt: Date
        enum CodingKeys: String, CodingKey {
            case id
            case createdAt = "created_at"
        }
    }
}
