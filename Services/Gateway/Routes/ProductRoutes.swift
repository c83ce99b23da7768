import Contracts
import Domain
import Hummingbird
import Wire

/// `/v1/stores/{id}/products`, `/v1/products…` and `/v1/reservations…`, forwarded to the
/// catalog, whose JSON is passed on as it wrote it.
struct ProductRoutes: Sendable {
    let catalog: any WireCaller

    func add(to v1: RouterGroup<GatewayContext>) {
        v1.post("stores/:id/products") { request, context in
            let options = try context.callOptions(request)
            let store = try request.pathID("id", context, as: StoreID.self)
            let draft = try await JSONBody.decode(ProductDraft.self, from: request, context: context)
            return JSONBody.forwarded(
                try await catalog.forward(
                    CatalogAPI.createProduct, NewProduct(storeID: store, product: draft), options: options),
                status: .created, versioned: true)
        }
        v1.get("stores/:id/products") { request, context in
            let options = try context.callOptions(request)
            let store = try request.pathID("id", context, as: StoreID.self)
            var query = QueryReader(request)
            if let since = query.text("since") {
                // The feed brings every change of the store's products, so it takes no filters.
                let filters = ["category", "q", "barcode", "active", "stock_status", "cursor"]
                    .filter { query.text($0) != nil }
                if !filters.isEmpty {
                    query.problems.add("since", "cannot be combined with " + filters.joined(separator: ", "))
                }
                let changes = ProductChangesRequest(
                    storeID: store, since: since, limit: query.int("limit", in: 1...1000))
                try query.check()
                return JSONBody.forwarded(
                    try await catalog.forward(CatalogAPI.productChanges, changes, options: options))
            }
            let list = ProductListRequest(
                storeID: store, category: query.text("category"), search: query.text("q"),
                barcode: query.text("barcode"), active: query.bool("active"),
                stockStatuses: query.choices("stock_status", as: StockStatus.self), page: query.page())
            try query.check()
            return JSONBody.forwarded(try await catalog.forward(CatalogAPI.listProducts, list, options: options))
        }
        v1.get("products/:id") { request, context in
            let options = try context.callOptions(request)
            let id = try request.pathID("id", context, as: ProductID.self)
            return JSONBody.forwarded(
                try await catalog.forward(CatalogAPI.getProduct, ResourceRef(id: id), options: options),
                versioned: true)
        }
        v1.patch("products/:id") { request, context in
            let options = try context.callOptions(request)
            let id = try request.pathID("id", context, as: ProductID.self)
            let patch = try await JSONBody.patch(request, context: context, id: id, ProductDraft.self)
            return JSONBody.forwarded(
                try await catalog.forward(CatalogAPI.updateProduct, patch, options: options), versioned: true)
        }
        v1.post("products/:id/stock-adjustments") { request, context in
            let options = try context.callOptions(request)
            let id = try request.pathID("id", context, as: ProductID.self)
            let adjustment = try await JSONBody.decode(StockAdjustment.self, from: request, context: context)
            return JSONBody.forwarded(
                try await catalog.forward(
                    CatalogAPI.adjustStock, ProductStockAdjustment(productID: id, adjustment: adjustment),
                    options: options),
                status: .created)
        }
        v1.get("products/:id/stock-ledger") { request, context in
            let options = try context.callOptions(request)
            let id = try request.pathID("id", context, as: ProductID.self)
            let ledger = StockLedgerRequest(productID: id, page: try QueryReader.page(request))
            return JSONBody.forwarded(try await catalog.forward(CatalogAPI.stockLedger, ledger, options: options))
        }
        v1.post("reservations") { request, context in
            let options = try context.callOptions(request)
            let body = try await JSONBody.collect(request, context: context)
            return JSONBody.forwarded(
                try await catalog.forward(CatalogAPI.reserve, json: body, options: options), status: .created)
        }
        v1.get("reservations/:id") { request, context in
            try await reservation(CatalogAPI.getReservation, request, context)
        }
        v1.post("reservations/:id/commit") { request, context in
            try await reservation(CatalogAPI.commitReservation, request, context)
        }
        v1.post("reservations/:id/release") { request, context in
            try await reservation(CatalogAPI.releaseReservation, request, context)
        }
    }

    /// Reads, commits or releases the reservation in the path.
    private func reservation(
        _ method: WireMethod<ResourceRef<ReservationID>, Reservation>, _ request: Request, _ context: GatewayContext
    ) async throws -> Response {
        let options = try context.callOptions(request)
        let id = try request.pathID("id", context, as: ReservationID.self)
        return JSONBody.forwarded(try await catalog.forward(method, ResourceRef(id: id), options: options))
    }
}
