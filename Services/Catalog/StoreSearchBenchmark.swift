import Contracts
import Domain
import Foundation
import Logging
import Storage

/// Times the search of stores (`orderly-catalog bench-store-search`): loads `count` stores around
/// one metropolitan area (each with a delivery area, a cuisine and eight dishes, names in Hebrew,
/// Arabic and English) into a new database, then asks as a visitor's app does: near a random
/// place, by the beginning of a dish's name, both, and one store by id as the reference.
enum StoreSearchBenchmark {
    /// One kind of request: its name and its answers' times, in milliseconds, sorted.
    struct Timing: Sendable {
        var name: String
        var samples: [Double]
        var found: Int

        func percentile(_ p: Double) -> Double {
            samples[min(samples.count - 1, Int((Double(samples.count) * p).rounded(.up)) - 1)]
        }
    }

    /// The area the stores are spread over: about 40 by 30 km around Tel Aviv.
    static let south = 31.90, north = 32.25, west = 34.70, east = 35.02

    static let dishes = [
        "שקשוקה", "חומוס", "פלאפל", "שווארמה", "סביח", "מלאווח", "ג׳חנון", "בורקס", "שניצל", "פיצה", "סושי",
        "فلافل", "حمص", "شاورما", "كنافة", "منسف", "مقلوبة", "فتوش", "تبولة", "Margherita", "Pepperoni", "Ramen",
        "Burger", "Caesar salad", "Pad thai", "Burrito", "Tacos", "Croissant", "Bagel", "Poke bowl",
    ]
    static let cuisines = ["Italian, Pizza", "Middle Eastern", "Levantine", "Japanese", "Burgers", "Bakery", "Thai"]
    static let names = ["פיצה", "מטבח", "בית", "مطعم", "بيت", "Kitchen", "Grill", "Corner", "Express", "Garden"]

    static func run(
        _ location: DatabaseLocation, count: Int, queries: Int, logger: Logger, progress: @Sendable (String) -> Void
    ) async throws -> [Timing] {
        let database = try await Database.open(location, logger: logger)
        defer { Task { await database.close() } }
        try await database.migrate(scope: CatalogService.name, CatalogService.migrations)
        var random = SystemRandomNumberGenerator()
        let ids = try await load(count, into: database, random: &random, progress: progress)
        let handlers = StoresHandlers(database: database)

        func place() -> GeoPoint {
            GeoPoint(lat: .random(in: south...north, using: &random), lng: .random(in: west...east, using: &random))
        }
        func prefix() -> String {
            let word = SearchWords.words(dishes.randomElement(using: &random)!)[0]
            return String(word.prefix(3))
        }
        func time(_ name: String, _ ask: () async throws -> Int) async throws -> Timing {
            var samples: [Double] = []
            var found = 0
            for _ in 0..<queries {
                let start = ContinuousClock.now
                found += try await ask()
                samples.append((ContinuousClock.now - start).timeInterval * 1000)
            }
            return Timing(name: name, samples: samples.sorted(), found: found)
        }
        return [
            try await time("near a place, by the beginning of a dish (near=…&q=…)") {
                try await handlers.listStores(
                    StoreListRequest(near: place(), query: prefix(), limit: 20), principal: nil
                ).data.count
            },
            try await time("near a place (near=…)") {
                try await handlers.listStores(StoreListRequest(near: place(), limit: 20), principal: nil).data.count
            },
            try await time("by the beginning of a dish (q=…)") {
                try await handlers.listStores(StoreListRequest(query: prefix(), limit: 20), principal: nil).data.count
            },
            try await time("one store by id (the reference)") {
                _ = try await handlers.store(ids.randomElement(using: &random)!, principal: nil)
                return 1
            },
        ]
    }

    /// Writes `count` stores, each with eight active dishes, in transactions of 500 stores.
    static func load(
        _ count: Int, into database: Database, random: inout SystemRandomNumberGenerator,
        progress: @Sendable (String) -> Void
    ) async throws -> [StoreID] {
        let stores = StoresRepository(database: database)
        let products = ProductsRepository(database: database)
        let started = ContinuousClock.now
        var ids: [StoreID] = []
        while ids.count < count {
            let now = Date.currentMillisecond
            var batch: [(Store, [Product])] = []
            for _ in 0..<min(500, count - ids.count) {
                var store = Store(
                    id: StoreID(), name: "", tier: .free, address: nil, phone: nil, currency: .ils,
                    timezone: "Asia/Jerusalem", vatRates: .standard, deliveryPricing: .standard, lowStockDefault: 5,
                    version: 1, createdAt: now, updatedAt: now)
                store.name = "\(names.randomElement(using: &random)!) \(names.randomElement(using: &random)!)"
                store.cuisine = cuisines.randomElement(using: &random)
                let centre = GeoPoint(
                    lat: .random(in: south...north, using: &random), lng: .random(in: west...east, using: &random))
                store.location = centre
                // Most deliver within a radius of 2 to 6 km; one in ten within a square of its own.
                if Int.random(in: 0..<10, using: &random) == 0 {
                    let d = 0.03
                    store.deliveryArea = .polygon([
                        GeoPoint(lat: centre.lat - d, lng: centre.lng - d),
                        GeoPoint(lat: centre.lat + d, lng: centre.lng - d),
                        GeoPoint(lat: centre.lat + d, lng: centre.lng + d),
                        GeoPoint(lat: centre.lat - d, lng: centre.lng + d),
                    ])
                } else {
                    store.deliveryArea = .radius(metres: Int.random(in: 2000...6000, using: &random))
                }
                let menu = (0..<8).map { _ in
                    Product(
                        id: ProductID(), storeID: store.id, name: dishes.randomElement(using: &random)!, price: 4500,
                        currency: .ils, vatRateBP: 1800, trackStock: false, lowStockThreshold: 5, createdAt: now,
                        updatedAt: now)
                }
                batch.append((store, menu))
            }
            try await database.transaction { [batch] transaction in
                for (store, menu) in batch {
                    try await stores.insert(store, in: transaction)
                    for product in menu { try await products.insert(product, in: transaction) }
                    try await StoreSearch.indexDishes(of: store.id, in: transaction)
                }
            }
            ids += batch.map(\.0.id)
            if ids.count % 2000 == 0 || ids.count == count {
                let rate = Double(ids.count) / (ContinuousClock.now - started).timeInterval
                progress("loaded \(ids.count) of \(count) stores with 8 dishes each (\(Int(rate)) stores per second)")
            }
        }
        return ids
    }
}
