import Domain
import Foundation
import SQLKit
import Storage

/// Where stores deliver and what words they are found by, kept beside `stores` in each engine's
/// own index (catalog migration 7): on SQLite an R*Tree of the rectangles around delivery areas
/// and an FTS5 table of words; on PostgreSQL a `box` column under GiST and `tsvector`s under GIN.
/// The words are folded by `SearchWords` before either engine sees them, and matched as
/// prefixes. The indexes narrow; the exact test (`DeliveryArea.contains`) decides.
enum StoreSearch {
    /// The most stores whose rectangles hold a place that one search reads: more than a city's
    /// densest square holds.
    static let maximumCandidates = 2000

    /// Writes `store`'s delivery rectangle and own words (name and cuisine), in the
    /// transaction that stores it.
    static func index(_ store: Store, in transaction: Transaction) async throws {
        let sql = transaction.sql
        let words = SearchWords.indexed([store.name, store.cuisine])
        let box = store.location.flatMap { location in store.deliveryArea?.box(around: location) }
        let (lat, lng) = (store.location?.lat ?? 0, store.location?.lng ?? 0)
        var (radius, polygon): (Int?, String?) = (nil, nil)
        switch store.deliveryArea {
        case .radius(let metres): radius = metres
        case .polygon(let corners): polygon = String(decoding: try JSONEncoder().encode(corners), as: UTF8.self)
        case nil: break
        }
        switch transaction.kind {
        case .sqlite:
            let key = try await key(of: store.id, in: transaction)
            try await sql.raw("DELETE FROM store_areas WHERE key = \(bind: key)").run()
            if let box {
                try await sql.raw(
                    """
                    INSERT INTO store_areas (key, min_lat, max_lat, min_lng, max_lng, store_id, lat, lng, radius_m, polygon)
                    VALUES (\(bind: key), \(bind: box.minLat), \(bind: box.maxLat), \(bind: box.minLng), \(bind: box.maxLng),
                        \(bind: store.id.description), \(bind: lat), \(bind: lng), \(bind: radius), \(bind: polygon))
                    """
                ).run()
            }
            if try await sql.raw("SELECT rowid FROM store_text WHERE rowid = \(bind: key)").first() == nil {
                try await sql.raw(
                    "INSERT INTO store_text (rowid, own_words, dish_words) VALUES (\(bind: key), \(bind: words), '')"
                ).run()
            } else {
                try await sql.raw("UPDATE store_text SET own_words = \(bind: words) WHERE rowid = \(bind: key)").run()
            }
        case .postgres:
            if let box {
                try await sql.raw(
                    """
                    INSERT INTO store_areas (store_id, area, lat, lng, radius_m, polygon)
                    VALUES (\(bind: store.id.description),
                        box(point(\(bind: box.minLng), \(bind: box.minLat)), point(\(bind: box.maxLng), \(bind: box.maxLat))),
                        \(bind: lat), \(bind: lng), \(bind: radius), \(bind: polygon))
                    ON CONFLICT (store_id) DO UPDATE SET area = EXCLUDED.area, lat = EXCLUDED.lat, lng = EXCLUDED.lng,
                        radius_m = EXCLUDED.radius_m, polygon = EXCLUDED.polygon
                    """
                ).run()
            } else {
                try await sql.raw("DELETE FROM store_areas WHERE store_id = \(bind: store.id.description)").run()
            }
            try await sql.raw(
                """
                INSERT INTO store_text (store_id, own_words, dish_words)
                VALUES (\(bind: store.id.description), array_to_tsvector(string_to_array(\(bind: words), ' ')), ''::tsvector)
                ON CONFLICT (store_id) DO UPDATE SET own_words = EXCLUDED.own_words
                """
            ).run()
        }
    }

    /// Writes the words of the names of the store's active products; called under the lock of
    /// the store's products (`Lock.products(of:)`) whenever one is added, renamed, or turned on
    /// or off.
    static func indexDishes(of store: StoreID, in transaction: Transaction) async throws {
        let sql = transaction.sql
        // The name alone, read by each engine's JSON functions rather than decoding whole products.
        let name: SQLQueryString =
            transaction.kind == .sqlite ? "json_extract(doc, '$.name')" : "CAST(doc AS json) ->> 'name'"
        let names = try await sql.raw(
            "SELECT " + name + " AS name FROM products WHERE store_id = \(bind: store.description) AND active = 1"
        ).all().map { try $0.decode(column: "name", as: String.self) }
        let words = SearchWords.indexed(names)
        switch transaction.kind {
        case .sqlite:
            let key = try await key(of: store, in: transaction)
            try await sql.raw("UPDATE store_text SET dish_words = \(bind: words) WHERE rowid = \(bind: key)").run()
        case .postgres:
            try await sql.raw(
                """
                UPDATE store_text SET dish_words = array_to_tsvector(string_to_array(\(bind: words), ' '))
                WHERE store_id = \(bind: store.description)
                """
            ).run()
        }
    }

    /// The integer SQLite's indexes know `store` by, given on first use.
    private static func key(of store: StoreID, in transaction: Transaction) async throws -> Int64 {
        let sql = transaction.sql
        try await sql.raw(
            "INSERT INTO store_keys (store_id) VALUES (\(bind: store.description)) ON CONFLICT (store_id) DO NOTHING"
        ).run()
        guard
            let row = try await sql.raw("SELECT key FROM store_keys WHERE store_id = \(bind: store.description)")
                .first()
        else { throw OrderlyError(.internal, "store \(store) has no search key") }
        return try row.decode(column: "key", as: Int64.self)
    }

    /// The condition on `stores.id` (as `column`) of the stores with words beginning with each of
    /// `words` (folded, as `SearchWords.query` gives them, at least one).
    static func matching(_ words: [String], column: String, kind: Database.Kind) -> SQLQueryString {
        switch kind {
        case .sqlite:
            // Each word quoted (they hold only letters and digits) and taken as a prefix.
            let query = words.map { "\"\($0)\"*" }.joined(separator: " ")
            return SQLQueryString(column)
                + """
                 IN (SELECT k.store_id FROM store_text t JOIN store_keys k ON k.key = t.rowid
                    WHERE store_text MATCH \(bind: query))
                """
        case .postgres:
            let query = words.map { "'\($0)':*" }.joined(separator: " & ")
            return SQLQueryString(column)
                + """
                 IN (SELECT store_id FROM store_text WHERE (own_words || dish_words) @@ CAST(\(bind: query) AS tsquery))
                """
        }
    }

    /// A store whose delivery rectangle holds a place: its id, place and area, read from the
    /// index alone.
    struct Candidate {
        var id: StoreID
        var location: GeoPoint
        var area: DeliveryArea
    }

    /// The stores whose delivery rectangles hold `place`, of `scope`, matching `words` when
    /// any: at most `maximumCandidates`, in no order, and not yet tested exactly.
    static func candidates(
        near place: GeoPoint, words: [String], scope: StoreScope, in sql: any SQLDatabase, kind: Database.Kind
    ) async throws -> [Candidate] {
        var query: SQLQueryString
        switch kind {
        case .sqlite:
            query = """
                SELECT store_id, lat, lng, radius_m, polygon FROM store_areas
                WHERE min_lat <= \(bind: place.lat) AND max_lat >= \(bind: place.lat)
                    AND min_lng <= \(bind: place.lng) AND max_lng >= \(bind: place.lng)
                """
        case .postgres:
            query = """
                SELECT store_id, lat, lng, radius_m, polygon FROM store_areas
                WHERE area @> box(point(\(bind: place.lng), \(bind: place.lat)), point(\(bind: place.lng), \(bind: place.lat)))
                """
        }
        query = query + " AND " + scope.condition(on: "store_id")
        if !words.isEmpty { query = query + " AND " + matching(words, column: "store_id", kind: kind) }
        let decoder = JSONDecoder()
        return try await sql.raw(query + " LIMIT \(bind: maximumCandidates)").all().map { row in
            let location = GeoPoint(
                lat: try row.decode(column: "lat", as: Double.self), lng: try row.decode(column: "lng", as: Double.self)
            )
            let area: DeliveryArea
            if let metres = try row.decode(column: "radius_m", as: Int?.self) {
                area = .radius(metres: metres)
            } else {
                let corners = try row.decode(column: "polygon", as: String?.self) ?? "[]"
                area = .polygon(try decoder.decode([GeoPoint].self, from: Data(corners.utf8)))
            }
            let id = try row.decode(column: "store_id", as: String.self)
            guard let store = StoreID(id) else { throw OrderlyError(.internal, "the search index names store \(id)") }
            return Candidate(id: store, location: location, area: area)
        }
    }

    /// The stores of `ids`, by id.
    static func stores(_ ids: [StoreID], in sql: any SQLDatabase) async throws -> [StoreID: Store] {
        guard !ids.isEmpty else { return [:] }
        let rows = try await sql.raw(
            "SELECT doc FROM stores WHERE id IN (" + .boundList(ids.map(\.description)) + ")"
        ).all()
        var stores: [StoreID: Store] = [:]
        for row in rows {
            let store = try StoredDocument.decode(Store.self, from: row)
            stores[store.id] = store
        }
        return stores
    }
}

/// What a list of stores keeps beyond its SQL: those open now, and those of one cuisine.
struct StoreFilter {
    var openNow: Bool
    /// The cuisine's folded words, joined by spaces.
    var cuisine: String?
    var at: Date

    init(openNow: Bool, cuisine: String?, at date: Date) {
        self.openNow = openNow
        self.cuisine = cuisine.map { SearchWords.words($0).joined(separator: " ") }.flatMap { $0.isEmpty ? nil : $0 }
        self.at = date
    }

    var isEmpty: Bool { !openNow && cuisine == nil }

    /// Whether `store` passes: open at the time, and one of the cuisines it lists (separated by
    /// commas or slashes: `Italian, Pizza`) is the one asked for, in any case or accents.
    func admits(_ store: Store) -> Bool {
        if openNow, !store.isOpen(at: at) { return false }
        guard let cuisine else { return true }
        return (store.cuisine ?? "").split(whereSeparator: { $0 == "," || $0 == "/" }).contains {
            SearchWords.words(String($0)).joined(separator: " ") == cuisine
        }
    }
}
