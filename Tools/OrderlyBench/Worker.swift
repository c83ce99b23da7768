import ArgumentParser
import AsyncHTTPClient
import Contracts
import Domain
import Foundation
import Histogram
import NIOCore
import NIOHTTP1
import Synchronization

/// One client: a store's staff member, or a courier (who also reads as the store's staff for
/// the ceiling and creation phases, so every client does the same work there).
final class Worker: Sendable {
    let index: Int
    let store: Int
    let staff: String
    let courier: Int?
    let courierToken: String?
    private let state = Mutex<(open: [OrderID: OrderStatus], carrying: [OrderID], notificationCursor: Int64)>(
        ([:], [], 0))

    init(index: Int, store: Int, staff: String, courier: Int?, courierToken: String?) {
        self.index = index
        self.store = store
        self.staff = staff
        self.courier = courier
        self.courierToken = courierToken
    }

    /// Creates an order, sometimes sending it twice with the same key (a retry after a lost answer).
    func create(_ api: API, record: RunRecord, stats: inout Stats, retry: Bool) async throws {
        let boxes = Int.random(in: 1...24)
        let pickup = Int.random(in: 0..<5) == 0
        let draft = OrderDraft(
            fulfillment: pickup ? .pickup : .delivery, recipientFirstName: "Dana", recipientLastName: "Levi",
            phone: "050-\(Int.random(in: 1_000_000...9_999_999))", street: "Herzl", buildingNo: "\(boxes)",
            city: "Tel Aviv", boxesCount: boxes, customerName: "Customer \(index)")
        let key = UUID().uuidString
        var first: OrderHeader?
        for attempt in 0..<(retry ? 2 : 1) {
            let reply = try await stats.time(attempt == 0 ? "POST /v1/orders" : "POST /v1/orders (same key again)") {
                try await api.send(.POST, "/v1/orders", token: staff, body: draft, headers: [("Idempotency-Key", key)])
            }
            guard let reply, reply.status == 201, let order = try? reply.decode(OrderHeader.self) else {
                if first == nil { record.uncertain(store: store) }
                continue
            }
            if let first, first.id != order.id || first.number != order.number {
                record.replayMismatch(
                    "key \(key): first \(first.id) #\(first.number), again \(order.id) #\(order.number)")
            }
            if first == nil {
                first = order
                record.acknowledged(order.id, .init(store: store, boxes: boxes, fulfillment: order.fulfillment))
                state.withLock { $0.open[order.id] = order.status }
            }
        }
    }

    func mixStep(_ api: API, record: RunRecord, stats: inout Stats, retryShare: Double) async throws {
        if courier != nil { return try await courierStep(api, record: record, stats: &stats) }
        let roll = Int.random(in: 0..<100)
        let open = state.withLock { $0.open }
        if roll < 40 || open.isEmpty {
            try await create(api, record: record, stats: &stats, retry: Double.random(in: 0..<1) < retryShare)
        } else if roll < 65 {
            let id = open.keys.randomElement()!
            let line = OrderItemDraft(
                type: [.repair, .accessory, .deviceSale, .devicePurchase, .product].randomElement()!,
                description: "Line", quantity: Int.random(in: 1...3), unitPriceGross: Int64.random(in: 1...50_000))
            // 422 when a courier took the order out meanwhile.
            let reply = try await stats.time("POST /v1/orders/{id}/items", expected: [201, 422]) {
                try await api.send(.POST, "/v1/orders/\(id)/items", token: staff, body: line)
            }
            if reply?.status == 422 { state.withLock { _ = $0.open.removeValue(forKey: id) } }
        } else if roll < 95 {
            let (id, status) = open.randomElement()!
            let action: OrderAction
            switch status {
            case .pending: action = .accept
            case .accepted: action = .startPreparing
            case .preparing: action = .markReady
            default:
                state.withLock { _ = $0.open.removeValue(forKey: id) }
                return
            }
            let reply = try await stats.time("POST /v1/orders/{id}/actions/*", expected: [200, 422]) {
                try await api.send(.POST, "/v1/orders/\(id)/actions/\(action.rawValue)", token: staff)
            }
            if let reply, reply.status == 200, let order = try? reply.decode(OrderHeader.self) {
                state.withLock { state in
                    if order.status == .ready && order.fulfillment == .delivery || !order.isOpen {
                        state.open.removeValue(forKey: id)
                    } else {
                        state.open[id] = order.status
                    }
                }
                if order.status == .ready && order.fulfillment == .pickup {
                    try await stats.time("POST /v1/orders/{id}/actions/*") {
                        try await api.send(.POST, "/v1/orders/\(id)/actions/mark_collected", token: staff)
                    }
                    state.withLock { _ = $0.open.removeValue(forKey: id) }
                }
            } else {
                state.withLock { _ = $0.open.removeValue(forKey: id) }
            }
        } else {
            try await longPoll(api, token: staff, stats: &stats)
        }
    }

    private func courierStep(_ api: API, record: RunRecord, stats: inout Stats) async throws {
        let token = courierToken!
        let roll = Int.random(in: 0..<100)
        let carrying = state.withLock { $0.carrying }
        // A courier carrying all they may takes their orders on instead of claiming more.
        if carrying.count < OrderPool.maximumCarried && (roll < 45 || carrying.isEmpty && roll < 90) {
            let reply = try await stats.time("GET /v1/orders?available=true") {
                try await api.send(.GET, "/v1/orders?available=true&limit=20", token: token)
            }
            guard let reply, reply.status == 200, let page = try? reply.decode(Page<OrderHeader>.self),
                let order = page.data.randomElement()
            else { return }
            // Couriers race: 409 is losing, 422 finding it changed meanwhile.
            let claim = try await stats.time("POST /v1/orders/{id}/actions/claim", expected: [200, 409, 422]) {
                try await api.send(.POST, "/v1/orders/\(order.id)/actions/claim", token: token)
            }
            if claim?.status == 200 {
                record.claimed(order.id, by: courier!)
                state.withLock { $0.carrying.append(order.id) }
            }
        } else if roll < 90, let id = carrying.randomElement() {
            let reply = try await stats.time("GET /v1/orders/{id}") {
                try await api.send(.GET, "/v1/orders/\(id)", token: token)
            }
            guard let reply, let order = try? reply.decode(OrderHeader.self) else { return }
            let next: OrderAction? =
                order.status == .ready ? .pickUp : order.status == .outForDelivery ? .deliver : nil
            if let next {
                try await stats.time("POST /v1/orders/{id}/actions/*", expected: [200, 422]) {
                    try await api.send(.POST, "/v1/orders/\(id)/actions/\(next.rawValue)", token: token)
                }
            }
            if next == .deliver || !order.isOpen && order.status != .outForDelivery {
                state.withLock { $0.carrying.removeAll { $0 == id } }
            }
        } else {
            try await longPoll(api, token: token, stats: &stats)
        }
    }

    /// Reads the inbox from where this client left off, waiting up to a second for news.
    private func longPoll(_ api: API, token: String, stats: inout Stats) async throws {
        let cursor = state.withLock { $0.notificationCursor }
        let reply = try await stats.time("GET /v1/notifications?wait=1") {
            try await api.send(.GET, "/v1/notifications?after=\(cursor)&wait=1&limit=200", token: token)
        }
        if let reply, let page = try? reply.decode(NotificationInbox.self), let last = page.data.last {
            state.withLock { $0.notificationCursor = max($0.notificationCursor, last.seq) }
        }
    }
}
