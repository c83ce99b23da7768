import Contracts
import Domain
import Foundation
import Logging
import Storage

/// Times order lists on a large SQLite database (`orderly-orders bench-order-lists`): loads `count`
/// orders of one store through the orders service's repository, then reads pages the way the
/// API does.
enum OrderListBenchmark {
    /// One timed list: its name and the median and worst of its runs, in milliseconds.
    struct Timing: Sendable {
        var name: String
        var medianMilliseconds: Double
        var worstMilliseconds: Double
        var rows: Int
    }

    /// Loads the orders into a new SQLite file at `path` and times the lists, `runs` times each.
    static func run(
        path: String, count: Int, runs: Int, logger: Logger, progress: @Sendable (String) -> Void
    ) async throws -> [Timing] {
        let database = try await Database.open(.sqlite(path: path, synchronousFull: false), logger: logger)
        defer { Task { await database.close() } }
        try await database.migrate(scope: OrdersService.name, OrdersService.migrations)
        let store = StoreID()
        let orders = OrdersRepository(database: database)
        try await load(count, store: store, into: orders, database: database, progress: progress)

        func time(_ name: String, _ list: @Sendable () async throws -> Page<Order>) async throws -> Timing {
            var samples: [Double] = []
            var rows = 0
            for _ in 0..<runs {
                let start = ContinuousClock.now
                rows = try await list().data.count
                samples.append((ContinuousClock.now - start).timeInterval * 1000)
            }
            samples.sort()
            return Timing(
                name: name, medianMilliseconds: samples[samples.count / 2], worstMilliseconds: samples.last!, rows: rows
            )
        }

        let delivered = OrdersRepository.Filter(statuses: [.delivered])
        // The cursor 10,000 orders deep into the filtered list, reached page by page as a client would.
        var cursor: KeysetCursor?
        for _ in 0..<(10_000 / 200) {
            let page = try await orders.list(.store(store), delivered, sort: .newest, after: cursor, limit: 200)
            cursor = try page.nextCursor.map { token throws(OrderlyError) in try KeysetCursor(token: token) }
        }
        let deep = cursor
        return [
            try await time("first page, status=delivered") {
                try await orders.list(.store(store), delivered, sort: .newest, after: nil, limit: 50)
            },
            try await time("page 10,000 orders deep, status=delivered") {
                try await orders.list(.store(store), delivered, sort: .newest, after: deep, limit: 50)
            },
            try await time("first page, status=pending,accepted sorted by due date") {
                try await orders.list(
                    .store(store), OrdersRepository.Filter(statuses: [.pending, .accepted]), sort: .dueSoonest,
                    after: nil, limit: 50)
            },
            // The pool (every accepted or ready delivery without a courier, a fifth of them here),
            // as a courier's app reads it, alone and beside the courier's own orders.
            try await time("a courier's first page of the pool (available=true)") {
                try await orders.list(
                    .courier(UserID(), pool: true), OrdersRepository.Filter(poolOnly: true), sort: .newest,
                    after: nil, limit: 50)
            },
            try await time("a courier's first page, their orders and the pool") {
                try await orders.list(
                    .courier(UserID(), pool: true), OrdersRepository.Filter(), sort: .newest, after: nil, limit: 50)
            },
            try await time("first page, created in one day") {
                let day: Int64 = 86_400_000
                let from = Date.currentMillisecond.millisecondsSince1970 - 100 * day
                return try await orders.list(
                    .store(store), OrdersRepository.Filter(createdFrom: from, createdTo: from + day), sort: .newest,
                    after: nil, limit: 50)
            },
        ]
    }

    /// Writes `count` orders of `store`: created over the past year, most delivered, some open
    /// or cancelled, in transactions of 20,000 orders.
    static func load(
        _ count: Int, store: StoreID, into orders: OrdersRepository, database: Database,
        progress: @Sendable (String) -> Void
    ) async throws {
        let draft = try OrderDraft(
            recipientFirstName: "Dana", recipientLastName: "Levi", phone: "050-1234567", street: "Herzl",
            buildingNo: "12", boxesCount: 3
        ).validated()
        let now = Date.currentMillisecond.millisecondsSince1970
        let year: Int64 = 365 * 86_400_000
        let statuses: [OrderStatus] = [
            .delivered, .delivered, .delivered, .delivered, .delivered, .delivered, .cancelled, .pending, .accepted,
            .ready,
        ]
        let batch = 20_000
        let started = ContinuousClock.now
        var written = 0
        while written < count {
            let size = min(batch, count - written)
            let first = written
            try await database.transaction { transaction in
                for index in 0..<size {
                    let number = Int64(first + index + 1)
                    let createdAt = now - year + number * year / Int64(count)
                    var order = Order(
                        id: OrderID(), number: number, storeID: store, status: statuses[Int(number % 10)],
                        version: 1, draft: draft, pickupAddress: "Allenby 1",
                        quote: DeliveryQuote(fee: 3500, multiplier: 1), currency: .ils, createdBy: UserID(),
                        createdAt: Date(millisecondsSince1970: createdAt))
                    order.dueAt = Date(millisecondsSince1970: createdAt + 86_400_000)
                    try await orders.insert(order, in: transaction)
                }
            }
            written += size
            let rate = Double(written) / (ContinuousClock.now - started).timeInterval
            progress("loaded \(written) of \(count) orders (\(Int(rate)) per second)")
        }
    }
}
