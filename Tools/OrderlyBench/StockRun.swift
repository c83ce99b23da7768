import AsyncHTTPClient
import Contracts
import Domain
import Foundation
import NIOHTTP1
import Synchronization

/// The products of a catalog run and what the run was told of them: sales acknowledged,
/// reservations left to expire.
final class StockRun: Sendable {
    struct Product: Sendable, Decodable {
        var id: String
        var quantity: Int
    }

    struct Held: Decodable, Sendable {
        var id: String
        var expiresAt: Date?
        var status: String

        enum CodingKeys: String, CodingKey {
            case id, status
            case expiresAt = "expires_at"
        }
    }

    let products: [Product]
    private let state = Mutex<(sold: [String: Int], left: [Held], reservations: Int)>(([:], [], 0))

    init(products: [Product]) { self.products = products }

    var reservations: Int { state.withLock { $0.reservations } }
    /// The units of `product` whose sale was acknowledged.
    func sold(of product: Product) -> Int { state.withLock { $0.sold[product.id, default: 0] } }
    var committedTotal: Int { state.withLock { $0.sold.values.reduce(0, +) } }
    var leftCount: Int { state.withLock { $0.left.count } }

    static func product(_ api: API, _ admin: String, _ store: StoreID, _ name: String, quantity: Int) async throws
        -> Product
    {
        try await api.require(
            [201], .POST, "/v1/stores/\(store)/products", token: admin,
            body: ProductDraft(name: name, price: 500, trackStock: true, quantity: Int64(quantity))
        ).decode(Product.self)
    }

    private func reserve(_ api: API, _ token: String, _ store: StoreID, _ product: Product, expiring: Int?)
        async throws -> API.Reply
    {
        try await api.send(
            .POST, "/v1/reservations", token: token,
            body: NewReservation(
                storeID: store, lines: [Reservation.Line(productID: ProductID(product.id)!, quantity: 1)],
                expiresInSeconds: expiring))
    }

    /// One reservation of one unit, then its end: commit one in ten, leave one in twenty to
    /// expire, release the rest.
    func reserveOnce(
        _ api: API, _ token: String, _ store: StoreID, _ product: Product, operation: String, stats: inout Stats
    ) async throws {
        let number = state.withLock { state in
            state.reservations += 1
            return state.reservations
        }
        let leave = number % 20 == 0
        let reply = try await stats.time(operation, expected: [201]) {
            try await reserve(api, token, store, product, expiring: leave ? 2 : nil)
        }
        guard let reply, reply.status == 201, let held = try? reply.decode(Held.self) else { return }
        if leave {
            state.withLock { $0.left.append(held) }
        } else if number % 10 == 0 {
            try await commit(api, token, held.id, product, stats: &stats)
        } else {
            try await stats.time("release") {
                try await api.send(.POST, "/v1/reservations/\(held.id)/release", token: token)
            }
        }
    }

    /// Reserves and commits one unit (a sale counts once its commit is acknowledged); false once
    /// the product is out of stock, true to go on after a sale or a failed try.
    func sellOne(_ api: API, _ token: String, _ store: StoreID, _ product: Product, stats: inout Stats) async throws
        -> Bool
    {
        let reply = try await stats.time("reserve (scarce)", expected: [201, 409]) {
            try await reserve(api, token, store, product, expiring: nil)
        }
        if reply?.status == 409 { return false }
        guard let reply, reply.status == 201, let held = try? reply.decode(Held.self) else { return true }
        try await commit(api, token, held.id, product, stats: &stats)
        return true
    }

    private func commit(_ api: API, _ token: String, _ id: String, _ product: Product, stats: inout Stats)
        async throws
    {
        let reply = try await stats.time("commit") {
            try await api.send(.POST, "/v1/reservations/\(id)/commit", token: token)
        }
        if reply?.status == 200 { state.withLock { $0.sold[product.id, default: 0] += 1 } }
    }

    struct Outcome {
        var problems: [String] = []
        var oversold = 0
    }

    struct Stock: Decodable {
        var quantity: Int
        var reserved: Int
        var available: Int
    }

    struct Entry: Decodable { var adjustment: Int }
    struct Entries: Decodable {
        var data: [Entry]
        var nextCursor: String?
        enum CodingKeys: String, CodingKey {
            case data
            case nextCursor = "next_cursor"
        }
    }

    /// Reads every product and reservation left alone back, after the last of those has had
    /// its time and the sweep interval (1 s) and a second more.
    func check(_ api: API, _ token: String, scarceSold: Int) async throws -> Outcome {
        var outcome = Outcome()
        let (sold, left) = state.withLock { ($0.sold, $0.left) }
        if let last = left.compactMap(\.expiresAt).max() {
            let wait = last.timeIntervalSinceNow + 2
            if wait > 0 { try await Task.sleep(for: .milliseconds(Int(wait * 1000))) }
        }
        for held in left {
            let now = try await api.require([200], .GET, "/v1/reservations/\(held.id)", token: token).decode(Held.self)
            if now.status != "expired" {
                outcome.problems.append("reservation \(held.id) is \(now.status) more than 2 s after it expired")
            }
        }
        if scarceSold > 20 {
            outcome.oversold += scarceSold - 20
            outcome.problems.append("\(scarceSold) units of a product of 20 were sold")
        }
        try await withThrowingTaskGroup(of: (problems: [String], oversold: Int).self) { group in
            func collect(_ found: (problems: [String], oversold: Int)?) {
                outcome.problems += found?.problems ?? []
                outcome.oversold += found?.oversold ?? 0
            }
            for (index, product) in products.enumerated() {
                if index >= 16 { collect(try await group.next()) }
                group.addTask {
                    var problems: [String] = []
                    let stock = try await api.require([200], .GET, "/v1/products/\(product.id)", token: token)
                        .decode(Stock.self)
                    let expected = product.quantity - sold[product.id, default: 0]
                    if stock.quantity < 0 || stock.available < 0 {
                        problems.append(
                            "product \(product.id) is oversold: \(stock.quantity) on hand, \(stock.available) available"
                        )
                    }
                    if stock.quantity != expected {
                        problems.append(
                            "product \(product.id) has \(stock.quantity) on hand; sales acknowledged leave \(expected)")
                    }
                    if stock.reserved != 0 { problems.append("product \(product.id) still holds \(stock.reserved)") }
                    // The ledger of the products sold from.
                    if sold[product.id] != nil {
                        var sum = 0
                        var cursor: String?
                        repeat {
                            let page = try await api.require(
                                [200], .GET,
                                "/v1/products/\(product.id)/stock-ledger?limit=200"
                                    + (cursor.map { "&cursor=\($0)" } ?? ""),
                                token: token
                            ).decode(Entries.self)
                            sum += page.data.reduce(0) { $0 + $1.adjustment }
                            cursor = page.nextCursor
                        } while cursor != nil
                        if sum != stock.quantity {
                            problems.append(
                                "product \(product.id): its ledger sums to \(sum), it has \(stock.quantity)")
                        }
                    }
                    return (problems, max(0, -stock.available))
                }
            }
            for try await found in group { collect(found) }
        }
        return outcome
    }
}
