import CSQLite
import Testing

@Suite("SQLite's page cache")
struct PageCacheTests {
    /// The wrapped page cache, as SQLite uses it, on a cache of its own.
    struct Cache: ~Copyable {
        let methods = orderly_pcache_methods()!.pointee
        let cache: OpaquePointer

        init() throws {
            try #require(orderly_sqlite3_configure() == SQLITE_OK)
            try #require(sqlite3_initialize() == SQLITE_OK)
            cache = try #require(methods.xCreate(4096, 64, 1))
            methods.xCachesize(cache, 100)
        }

        deinit { methods.xDestroy(cache) }

        /// Caches pages with these numbers (as SQLite does when it reads or adds them).
        func add(_ keys: some Sequence<UInt32>) throws {
            for key in keys {
                let page = try #require(methods.xFetch(cache, key, 2))
                methods.xUnpin(cache, page, 0)
            }
        }

        func rekey(_ old: UInt32, _ new: UInt32) throws {
            let page = try #require(methods.xFetch(cache, old, 0))
            methods.xRekey(cache, page, old, new)
            methods.xUnpin(cache, page, 0)
        }

        func truncate(_ limit: UInt32) { methods.xTruncate(cache, limit) }
        var count: Int32 { methods.xPagecount(cache) }
    }

    /// Where a b-tree split parks a page with 4 KiB pages: the lock-byte page.
    static let parking: UInt32 = 0x4000_0000 / 4096 + 1

    @Test("a truncation drops every page at or past its limit")
    func truncation() throws {
        let cache = try Cache()
        try cache.add(1...10)
        cache.truncate(11)
        #expect(cache.count == 10)
        cache.truncate(9)
        #expect(cache.count == 8)
        try cache.add([40])
        cache.truncate(20)
        #expect(cache.count == 8)
        cache.truncate(1)
        #expect(cache.count == 0)
    }

    @Test("pages renumbered by a split are dropped as their new numbers say, one left parked too")
    func parkedPages() throws {
        let cache = try Cache()
        try cache.add(1...6)
        // A split swapping pages 5 and 6, as SQLite does it.
        try cache.rekey(5, Self.parking)
        try cache.rekey(6, 5)
        try cache.rekey(Self.parking, 6)
        cache.truncate(7)
        #expect(cache.count == 6)
        cache.truncate(6)
        #expect(cache.count == 5)
        // A page left on the parking number is dropped as a page past the end, and so is one
        // moved past the end.
        try cache.rekey(5, Self.parking)
        cache.truncate(6)
        #expect(cache.count == 4)
        try cache.rekey(3, 90)
        cache.truncate(50)
        #expect(cache.count == 3)
    }
}
