public import Domain
import Foundation
public import WireContract

/// The catalog service's methods: stores, products and their stock.
public enum CatalogAPI {
    public static let service = "catalog"
    /// The gateway calls everything; orders and payments read stores and products and hold,
    /// sell and give back stock for the sales they make.
    public static let callers = WireCallers([
        GatewayAPI.service: WireCallers.everything, OrdersAPI.service: selling, PaymentsAPI.service: selling,
    ])
    private static let selling = WireCallers.only(
        getStore.name, getProduct.name, checkoutProducts.name, reserve.name, getReservation.name,
        commitReservation.name, releaseReservation.name)
    /// Admins only.
    public static let createStore = WireMethod<StoreDraft, Store>("catalog.stores.create", safeToRetry: false)
    public static let getStore = WireMethod<ResourceRef<StoreID>, Store>("catalog.stores.get", safeToRetry: true)
    /// Admins, couriers and customers see every store; store users their own.
    public static let listStores = WireMethod<StoreListRequest, Page<Store>>("catalog.stores.list", safeToRetry: true)
    /// Admins, and the store's owner and managers.
    public static let updateStore = WireMethod<StorePatch, Store>("catalog.stores.update", safeToRetry: false)

    /// Every signed-in user who sees the store, customers and couriers included.
    public static let menu = WireMethod<ResourceRef<StoreID>, Menu>("catalog.menu", safeToRetry: true)

    /// Admins, and the store's owner and managers.
    public static let createProduct = WireMethod<NewProduct, Product>("catalog.products.create", safeToRetry: false)
    /// Admins and the store's users.
    public static let getProduct = WireMethod<ResourceRef<ProductID>, Product>(
        "catalog.products.get", safeToRetry: true)
    /// Admins, and the store's owner and managers.
    public static let updateProduct = WireMethod<ProductPatch, Product>("catalog.products.update", safeToRetry: false)
    /// Admins and the store's users: a store's products, filtered, in creation order.
    public static let listProducts = WireMethod<ProductListRequest, Page<Product>>(
        "catalog.products.list", safeToRetry: true)
    /// Admins and the store's users: a store's products changed after a cursor, deactivated
    /// ones included (offline tablets).
    public static let productChanges = WireMethod<ProductChangesRequest, ProductChangesPage>(
        "catalog.products.changes", safeToRetry: true)
    /// Admins, and the store's owner and managers: one ledger entry.
    public static let adjustStock = WireMethod<ProductStockAdjustment, StockLedgerEntry>(
        "catalog.stock.adjust", safeToRetry: false)
    /// Admins and the store's users: a product's ledger, oldest entry first.
    public static let stockLedger = WireMethod<StockLedgerRequest, Page<StockLedgerEntry>>(
        "catalog.stock.ledger", safeToRetry: true)
    /// Admins and the store's users: the store's ledger, newest first, filtered, each entry
    /// with its product's name.
    public static let storeStockLedger = WireMethod<StoreStockLedgerRequest, Page<StockLedgerEntry>>(
        "catalog.stock.store_ledger", safeToRetry: true)

    /// The products a sale lists, for the orders and payments services (`StockHolds.sellable`):
    /// those of `ids` that are the store's (inactive ones too, so that the sale names them).
    public static let checkoutProducts = WireMethod<CheckoutProductsRequest, [Product]>(
        "catalog.products.checkout", safeToRetry: true)
    /// Admins and the store's users, and services selling for them: every line held, or none
    /// (`409 insufficient_stock` naming each short product; a product not for sale is 422
    /// `product_inactive`).
    public static let reserve = WireMethod<NewReservation, Reservation>(
        "catalog.reservations.create", safeToRetry: false)
    public static let getReservation = WireMethod<ResourceRef<ReservationID>, Reservation>(
        "catalog.reservations.get", safeToRetry: true)
    /// Sells what a held reservation holds: one `sale` ledger entry per line. Repeating it is
    /// harmless.
    public static let commitReservation = WireMethod<ResourceRef<ReservationID>, Reservation>(
        "catalog.reservations.commit", safeToRetry: true)
    /// Gives back what a held reservation holds. Repeating it is harmless.
    public static let releaseReservation = WireMethod<ResourceRef<ReservationID>, Reservation>(
        "catalog.reservations.release", safeToRetry: true)

    /// The events the catalog publishes on `orderly:events:catalog`: the store's with the store
    /// as payload, the products' with the product.
    public enum Events {
        public static let storeCreated = "store.created"
        public static let storeUpdated = "store.updated"
        public static let productCreated = "product.created"
        public static let productUpdated = "product.updated"
        /// A product's stock crossed its low-stock threshold downwards (`StockStatus.alert`).
        public static let stockLow = Product.Events.low
        /// A product's stock ran out.
        public static let stockOut = Product.Events.out
    }
}

/// Changes to a product.
public typealias ProductPatch = Patch<ProductID, ProductDraft>

/// The products of a store changed after `since` ("0" for all of them).
public typealias ProductChangesRequest = StoreChangesRequest

/// Products as they are now, each changed after the cursor asked from, oldest change first.
/// Products are deactivated rather than deleted, so a product gone from sale comes with
/// `active: false`.
public typealias ProductChangesPage = ChangesPage<Product>

/// Changes to a store.
public typealias StorePatch = Patch<StoreID, StoreDraft>
