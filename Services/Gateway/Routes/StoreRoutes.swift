import Contracts
import Domain
import Hummingbird
import Wire

/// `/v1/stores…`, forwarded to the catalog.
struct StoreRoutes: Sendable {
    let catalog: any WireCaller

    func add(to v1: RouterGroup<GatewayContext>) {
        v1.post("stores") { request, context in
            let options = try context.callOptions(request)
            let draft = try await JSONBody.decode(StoreDraft.self, from: request, context: context)
            let store = try await catalog.call(CatalogAPI.createStore, draft, options: options)
            return try JSONBody.response(store, status: .created, version: store.version)
        }
        v1.get("stores") { request, context in
            let options = try context.callOptions(request)
            var query = QueryReader(request)
            let page = query.page()
            let list = StoreListRequest(openNow: query.bool("open_now"), limit: page.limit, cursor: page.cursor)
            try query.check()
            return JSONBody.forwarded(try await catalog.forward(CatalogAPI.listStores, list, options: options))
        }
        v1.get("stores/:id/menu") { request, context in
            let options = try context.callOptions(request)
            let id = try request.pathID("id", context, as: StoreID.self)
            return JSONBody.forwarded(try await catalog.forward(CatalogAPI.menu, ResourceRef(id: id), options: options))
        }
        v1.get("stores/:id") { request, context in
            let options = try context.callOptions(request)
            let id = try request.pathID("id", context, as: StoreID.self)
            let store = try await catalog.call(CatalogAPI.getStore, ResourceRef(id: id), options: options)
            return try JSONBody.response(store, version: store.version)
        }
        v1.patch("stores/:id") { request, context in
            let options = try context.callOptions(request)
            let id = try request.pathID("id", context, as: StoreID.self)
            let patch = try await JSONBody.patch(request, context: context, id: id, StoreDraft.self)
            let store = try await catalog.call(CatalogAPI.updateStore, patch, options: options)
            return try JSONBody.response(store, version: store.version)
        }
    }
}
