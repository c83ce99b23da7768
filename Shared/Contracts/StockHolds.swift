public import Domain
public import Logging
public import WireContract

/// The one way orders and payments sell from the catalog: the products of a store a sale lists
/// (`sellable`), their stock held for the sale, every line or none with every shortage named
/// (`hold`), and given back when the sale is not stored (`giveBack`; a failure is logged once, and
/// the hold expires by itself). Whether a product may be sold is `Product.checkForSale`.
public struct StockHolds: Sendable {
    let catalog: any ContractCaller
    let logger: Logger

    public init(catalog: any ContractCaller, logger: Logger) {
        self.catalog = catalog
        self.logger = logger
    }

    /// What stock is held for.
    public enum Sale: Sendable {
        /// An order's lines: a reservation per line, which the catalog keeps with its line until
        /// the order ends.
        case order(OrderID)
        /// A payment at the till: one reservation of every line, which ends with the payment.
        case payment(PaymentID)
    }

    /// A line to hold: `quantity` of `productID`, named in a refusal by `field` (`items[2]`; empty
    /// for the one line of a request that is the line itself).
    public struct Line: Sendable {
        public var productID: ProductID
        public var quantity: Int64
        public var field: String

        public init(productID: ProductID, quantity: Int64, field: String) {
            self.productID = productID
            self.quantity = quantity
            self.field = field
        }
    }

    /// Those of `ids` that are products of `store`, by id, inactive ones too (a sale names them
    /// with `Product.checkForSale`).
    public func sellable(_ ids: [ProductID], in store: StoreID, for principal: Principal) async throws
        -> [ProductID: Product]
    {
        guard !ids.isEmpty else { return [:] }
        let products = try await catalog.call(
            CatalogAPI.checkoutProducts, CheckoutProductsRequest(storeID: store, ids: ids), for: principal)
        return Dictionary(products.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// Holds `lines` for `sale` until `seconds` from now, every line or none, the reservations in
    /// the order of the lines (one for a payment). Products short of stock are named together in
    /// one `409 insufficient_stock` (`details.products`: each one's `product_id`, `available`
    /// and `requested`); a line the catalog refuses is named by its `field`.
    public func hold(
        _ lines: [Line], for sale: Sale, in store: StoreID, reference: String, expiringIn seconds: Int,
        for principal: Principal
    ) async throws -> [Reservation] {
        guard !lines.isEmpty else { return [] }
        switch sale {
        case .payment(let payment):
            let request = NewReservation(
                storeID: store, paymentID: payment,
                lines: lines.map { Reservation.Line(productID: $0.productID, quantity: $0.quantity) },
                reference: reference, expiresInSeconds: seconds)
            return [try await reserve(request, fields: lines.map(\.field), for: principal)]
        case .order(let order):
            var held: [Int: Reservation] = [:]
            var shortages: [JSONValue] = []
            var short = false
            var failure: (any Error)?
            await withTaskGroup(of: (Int, Result<Reservation, any Error>).self) { group in
                for (index, line) in lines.enumerated() {
                    let request = NewReservation(
                        storeID: store, orderID: order,
                        lines: [Reservation.Line(productID: line.productID, quantity: line.quantity)],
                        reference: reference, expiresInSeconds: seconds)
                    group.addTask {
                        do {
                            return (index, .success(try await reserve(request, fields: [line.field], for: principal)))
                        } catch {
                            return (index, .failure(error))
                        }
                    }
                }
                for await (index, result) in group {
                    switch result {
                    case .success(let reservation): held[index] = reservation
                    case .failure(let error as OrderlyError) where error.reason == .insufficientStock:
                        short = true
                        if case .array(let products)? = error.details?["products"] { shortages += products }
                    case .failure(let error): failure = failure ?? error
                    }
                }
            }
            guard failure == nil, !short else {
                await giveBack(Array(held.values), for: principal)
                if let failure { throw failure }
                throw OrderlyError(
                    .insufficientStock, "not enough stock for this order", details: ["products": .array(shortages)])
            }
            return lines.indices.compactMap { held[$0] }
        }
    }

    /// Gives back what `holds` hold, for a sale that was not stored; one that cannot be given back
    /// is logged, and expires by itself.
    public func giveBack(_ holds: [Reservation], for principal: Principal) async {
        for hold in holds {
            do {
                _ = try await catalog.call(CatalogAPI.releaseReservation, ResourceRef(id: hold.id), for: principal)
            } catch {
                logger.warning(
                    "stock held for a sale not stored could not be given back; it is held until it expires",
                    metadata: [
                        "reservation.id": "\(hold.id)", "expires_at": "\(hold.expiresAt.map { "\($0)" } ?? "never")",
                        "error": "\(error)",
                    ])
            }
        }
    }

    /// One reservation, the catalog's field names of its lines (`lines[0].quantity`) renamed
    /// after the sale's (`items[2].quantity`, or `quantity` for an empty field).
    private func reserve(_ request: NewReservation, fields: [String], for principal: Principal) async throws
        -> Reservation
    {
        do {
            return try await catalog.call(CatalogAPI.reserve, request, for: principal)
        } catch var error as OrderlyError where error.details != nil && error.reason != .insufficientStock {
            var details: [String: JSONValue] = [:]
            for (field, reason) in error.details ?? [:] {
                if let match = field.wholeMatch(of: /lines\[(\d+)\]\.(.+)/), let line = Int(match.1),
                    fields.indices.contains(line)
                {
                    details[fields[line].isEmpty ? String(match.2) : "\(fields[line]).\(match.2)"] = reason
                } else {
                    details[field] = reason
                }
            }
            // A bad field's refusal names the fields in its message too.
            guard error.code == .invalidArgument else {
                error.details = details
                throw error
            }
            throw OrderlyError.invalidFields(details.compactMapValues { if case .string(let text) = $0 { text } else { nil } })
        }
    }
}
