import Contracts
import Domain
import Hummingbird
import Wire
import WireContract

/// `/v1/stores/{id}/products`, `/v1/products…` and `/v1/reservations…`, forwarded to the
/// catalog, whose JSON is passed on as it wrote it.
struct ProductRoutes: Sendable {
    let catalog: any WireCaller

    func add(to v1: RouterGroup<GatewayContext>) {
        v1.post("stores/:id/products", use: signedIn(create))
            .get("stores/:id/products", use: signedIn(list))
            .get("products/:id", use: signedIn(get))
            .patch("products/:id", use: signedIn(update))
            .post("products/:id/stock-adjustments", use: signedIn(adjustStock))
            .get("products/:id/stock-ledger", use: signedIn(stockLedger))
            .get("stores/:id/stock-ledger", use: signedIn(storeStockLedger))
            .post("reservations", use: signedIn(reserve))
            .get("reservations/:id", use: signedIn(reservation(CatalogAPI.getReservation)))
            .post("reservations/:id/commit", use: signedIn(reservation(CatalogAPI.commitReservation)))
            .post("reservations/:id/release", use: signedIn(reservation(CatalogAPI.releaseReservation)))
    }

    @Sendable func create(_ request: SignedInRequest) async throws -> Response {
        let product = NewProduct(
            storeID: try request.id(as: StoreID.self), product: try await request.decode(ProductDraft.self))
        return JSONBody.forwarded(
            try await catalog.forward(CatalogAPI.createProduct, product, options: request.options), status: .created,
            versioned: true)
    }

    /// A store's products, or with `since` the feed of their changes, which takes no filters.
    @Sendable func list(_ request: SignedInRequest) async throws -> Response {
        let store = try request.id(as: StoreID.self)
        var query = request.query
        if let since = query.text("since") {
            let filters = ["category", "q", "barcode", "active", "stock_status", "cursor", "count"].filter {
                query.text($0) != nil
            }
            if !filters.isEmpty {
                query.problems.add("since", "cannot be combined with " + filters.joined(separator: ", "))
            }
            let changes = ProductChangesRequest(storeID: store, since: since, limit: query.int("limit", in: 1...1000))
            try query.check()
            return JSONBody.forwarded(
                try await catalog.forward(CatalogAPI.productChanges, changes, options: request.options))
        }
        let list = ProductListRequest(
            storeID: store, category: query.text("category"), search: query.text("q"), barcode: query.text("barcode"),
            active: query.bool("active"), stockStatuses: query.choices("stock_status", as: StockStatus.self),
            page: query.page())
        try query.check()
        return JSONBody.forwarded(try await catalog.forward(CatalogAPI.listProducts, list, options: request.options))
    }

    @Sendable func get(_ request: SignedInRequest) async throws -> Response {
        let product = ResourceRef(id: try request.id(as: ProductID.self))
        return JSONBody.forwarded(
            try await catalog.forward(CatalogAPI.getProduct, product, options: request.options), versioned: true)
    }

    @Sendable func update(_ request: SignedInRequest) async throws -> Response {
        let patch = try await request.patch(try request.id(as: ProductID.self), ProductDraft.self)
        return JSONBody.forwarded(
            try await catalog.forward(CatalogAPI.updateProduct, patch, options: request.options), versioned: true)
    }

    @Sendable func adjustStock(_ request: SignedInRequest) async throws -> Response {
        let adjustment = ProductStockAdjustment(
            productID: try request.id(as: ProductID.self), adjustment: try await request.decode(StockAdjustment.self))
        return JSONBody.forwarded(
            try await catalog.forward(CatalogAPI.adjustStock, adjustment, options: request.options), status: .created)
    }

    @Sendable func stockLedger(_ request: SignedInRequest) async throws -> Response {
        let ledger = StockLedgerRequest(productID: try request.id(as: ProductID.self), page: try request.page())
        return JSONBody.forwarded(try await catalog.forward(CatalogAPI.stockLedger, ledger, options: request.options))
    }

    @Sendable func storeStockLedger(_ request: SignedInRequest) async throws -> Response {
        var query = request.query
        let ledger = StoreStockLedgerRequest(
            storeID: try request.id(as: StoreID.self), productID: query.id("product_id", as: ProductID.self),
            reasons: query.choices("reason", as: StockReason.self), from: query.date("from"), to: query.date("to"),
            page: query.page())
        try query.check()
        return JSONBody.forwarded(
            try await catalog.forward(CatalogAPI.storeStockLedger, ledger, options: request.options))
    }

    @Sendable func reserve(_ request: SignedInRequest) async throws -> Response {
        let body = try await request.body()
        try JSONBody.check(body, as: NewReservation.self)
        return JSONBody.forwarded(
            try await catalog.forward(CatalogAPI.reserve, json: body, options: request.options), status: .created)
    }

    /// Reads, commits or releases the reservation in the path, as `method` says.
    func reservation(_ method: WireMethod<ResourceRef<ReservationID>, Reservation>) -> SignedInEndpoint {
        { request in
            let reservation = ResourceRef(id: try request.id(as: ReservationID.self))
            return JSONBody.forwarded(try await catalog.forward(method, reservation, options: request.options))
        }
    }
}
