import Contracts
import Domain
import Foundation

/// The ledger's invariants after a marketplace run, read back through the API as the admin: every
/// entry of every store and courier balances (so the sum over all accounts is zero) and adds up
/// to the balance kept; each store earned its completed payments less their commission, the fees
/// and tips of its delivered orders and the payouts acknowledged to it; each courier earned the
/// fees and tips of what they delivered and holds the cash they collected; a payout of part of
/// each store's balance takes exactly that.
extension Marketplace {
    func checkLedger(_ api: API, cast: Cast, wait: Duration) async throws -> [String] {
        var problems: [String] = []
        let deadline = ContinuousClock.now + wait
        // Every delivered order, the suite's own list (an order whose answer was lost counts too).
        let orders: [Order] = try await every(api, "/v1/orders?status=delivered", admin: cast.admin)
        let paidOut = self.paidOut
        var collected: [UserID: Int64] = [:]
        for store in stores {
            let bp =
                try await api.require([200], .GET, "/v1/stores/\(store)", token: cast.admin)
                .decode(Store.self).commissionBP ?? 0
            var earned: Int64 = 0
            for payment in try await completedPayments(api, of: store, admin: cast.admin) {
                earned += payment.amount - Domain.Ledger.commission(of: payment, bp: bp)
                if payment.collectedOnDelivery { collected[payment.staffID, default: 0] += payment.amount }
            }
            for order in orders where order.storeID == store {
                earned -= order.deliveryFee + (order.tip ?? 0)
            }
            earned -= paidOut[store, default: 0]
            let path = "/v1/stores/\(store)/balance"
            let figures = try await settled(api, path, admin: cast.admin, earned: earned, deadline: deadline)
            if figures.earned != earned {
                problems.append("store \(store): earned \(figures.earned), the rules say \(earned)")
            }
            problems += try await entriesBalance(api, path, admin: cast.admin, balance: figures.balance)
            // A payout of half of what is available takes exactly that.
            let half = figures.available / 2
            guard half > 0 else { continue }
            _ = try await api.require(
                [201], .POST, "/v1/stores/\(store)/payouts", token: cast.admin,
                body: PayoutDraft(amount: half, currency: figures.currency, reference: "loadgen"),
                headers: [("Idempotency-Key", "loadgen-payout-\(store)")])
            let after = try await settled(api, path, admin: cast.admin, earned: earned - half, deadline: deadline)
            if after.earned != earned - half {
                problems.append(
                    "store \(store): earned \(after.earned) after a payout of \(half), not \(earned - half)")
            }
        }
        for courier in cast.courierIDs {
            let earned = orders.filter { $0.courierID == courier }
                .reduce(Int64(0)) { $0 + $1.deliveryFee + ($1.tip ?? 0) }
            let path = "/v1/couriers/\(courier)/balance"
            let figures = try await settled(api, path, admin: cast.admin, earned: earned, deadline: deadline)
            if figures.earned != earned || figures.cashHeld != collected[courier, default: 0] {
                problems.append(
                    "courier \(courier): earned \(figures.earned), holds \(figures.cashHeld); the rules say "
                        + "\(earned), \(collected[courier, default: 0])")
            }
            problems += try await entriesBalance(api, path, admin: cast.admin, balance: figures.balance)
        }
        return problems
    }

    /// A store's completed payments, every page.
    func completedPayments(_ api: API, of store: StoreID, admin: String) async throws -> [Payment] {
        try await every(api, "/v1/stores/\(store)/payments?status=completed", admin: admin)
    }

    /// Every item of the list at `path` (a query string included), page after page.
    private func every<Item: Codable & Sendable>(_ api: API, _ path: String, admin: String) async throws -> [Item] {
        var items: [Item] = []
        var cursor: String?
        repeat {
            let page = try await api.require(
                [200], .GET, path + "&limit=200" + (cursor.map { "&cursor=\($0)" } ?? ""), token: admin
            ).decode(Page<Item>.self)
            items += page.data
            cursor = page.nextCursor
        } while cursor != nil
        return items
    }

    /// The balance at `path` once what it earned is `earned`, or as it is at `deadline`: the
    /// followers post the entries as they read the events.
    private func settled(_ api: API, _ path: String, admin: String, earned: Int64, deadline: ContinuousClock.Instant)
        async throws -> CurrencyBalance
    {
        while true {
            let figures =
                try await api.require([200], .GET, path + "?limit=1", token: admin).decode(AccountBalance.self)
                .balances.first ?? CurrencyBalance(currency: .ils)
            if figures.earned == earned || ContinuousClock.now > deadline { return figures }
            try await Task.sleep(for: .milliseconds(200))
        }
    }

    /// Each entry at `path` balances, and what they moved adds up to `balance`.
    private func entriesBalance(_ api: API, _ path: String, admin: String, balance: Int64) async throws -> [String] {
        var problems: [String] = []
        var moved: Int64 = 0
        var cursor: String?
        repeat {
            let page = try await api.require(
                [200], .GET, path + "?limit=200" + (cursor.map { "&cursor=\($0)" } ?? ""), token: admin
            ).decode(AccountBalance.self)
            for line in page.data {
                moved += line.amount
                if !line.entry.isBalanced { problems.append("\(path): entry \(line.entry.reference) does not balance") }
            }
            cursor = page.nextCursor
        } while cursor != nil
        if moved != balance { problems.append("\(path): entries add up to \(moved), the balance is \(balance)") }
        return problems
    }
}
