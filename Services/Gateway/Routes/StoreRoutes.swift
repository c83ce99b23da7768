import Contracts
import Domain
import Hummingbird
import Wire

/// `/v1/stores…`, forwarded to the catalog. A store, the list of stores and a menu are read
/// without an account too (limited per client address like every request without a token):
/// a visitor gets each store's public profile (`AccessPolicy.presentToVisitor`).
struct StoreRoutes: Sendable {
    let catalog: any WireCaller

    func add(to v1: RouterGroup<GatewayContext>) {
        v1.post("stores", use: signedIn(create))
            .get("stores", use: browsing(list))
            .get("stores/:id/menu", use: browsing(menu))
            .get("stores/:id", use: browsing(get))
            .patch("stores/:id", use: signedIn(update))
    }

    @Sendable func create(_ request: SignedInRequest) async throws -> Response {
        let draft = try await request.decode(StoreDraft.self)
        let store = try await catalog.call(CatalogAPI.createStore, draft, options: request.options)
        return try JSONBody.response(store, status: .created, version: store.version)
    }

    /// The longest search a list takes.
    static let maximumSearchLength = 200

    @Sendable func list(_ request: BrowsingRequest) async throws -> Response {
        var query = request.query
        let page = query.page()
        let sort = query.choices("sort", as: StoreListRequest.Sort.self)
        if let sort, sort.count != 1 { query.problems.add("sort", "must be one of distance") }
        let list = StoreListRequest(
            openNow: query.bool("open_now"), near: query.place("near"),
            query: query.text("q", maximumLength: Self.maximumSearchLength),
            cuisine: query.text("cuisine", maximumLength: Self.maximumSearchLength), sort: sort?.first,
            limit: page.limit, cursor: page.cursor, count: page.count)
        try query.check()
        return JSONBody.forwarded(try await catalog.forward(CatalogAPI.listStores, list, options: request.options))
    }

    @Sendable func menu(_ request: BrowsingRequest) async throws -> Response {
        let store = ResourceRef(id: try request.id(as: StoreID.self))
        return JSONBody.forwarded(try await catalog.forward(CatalogAPI.menu, store, options: request.options))
    }

    @Sendable func get(_ request: BrowsingRequest) async throws -> Response {
        let id = ResourceRef(id: try request.id(as: StoreID.self))
        let store = try await catalog.call(CatalogAPI.getStore, id, options: request.options)
        return try JSONBody.response(store, version: store.version)
    }

    @Sendable func update(_ request: SignedInRequest) async throws -> Response {
        let patch = try await request.patch(try request.id(as: StoreID.self), StoreDraft.self)
        let store = try await catalog.call(CatalogAPI.updateStore, patch, options: request.options)
        return try JSONBody.response(store, version: store.version)
    }
}
