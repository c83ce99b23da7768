import Contracts
import Domain
import Foundation
import Runtime
import Storage
import Wire

/// The ledger's Wire methods: a store's or a courier's balances with their entries, and payouts
/// recorded against them. The entries themselves are posted by the followers, once per payment,
/// refund and delivery (`LedgerFollower`, `OrderMoneyFollower`).
struct LedgerHandlers: Sendable {
    let database: Database
    let ledger: LedgerRepository
    let catalog: any WireCaller
    /// How long a credit to what a holder earned stays pending before a payout may take it.
    let hold: Duration

    var idempotency: IdempotencyStore { IdempotencyStore(database: database) }

    /// Since when credits are pending now; nil without a hold.
    private var heldSince: Date? { hold > .zero ? Date() - TimeInterval(hold.components.seconds) : nil }

    func register(in router: inout WireRouter) {
        router.register(PaymentsAPI.balance) { request, context in
            try await balance(request, principal: context.requirePrincipal())
        }
        router.register(PaymentsAPI.recordPayout) { request, context in
            try await payout(
                request, principal: context.requirePrincipal(),
                idempotencyKey: context.requireIdempotencyKey(for: "recording a payout"))
        }
    }

    /// The holder's balances and a page of their entries; a holder the caller may not see is 404.
    func balance(_ request: BalanceRequest, principal: Principal) async throws -> AccountBalance {
        let holder = try request.holder()
        guard AccessPolicy(principal).canSeeBalance(of: holder) else { throw Self.missing(holder) }
        let limit = try KeysetCursor.limit(request.page.limit)
        let cursor = try request.page.cursor.map { cursor throws(OrderlyError) in try KeysetCursor(token: cursor) }
        let (ledger, heldSince) = (self.ledger, self.heldSince)
        return try await database.read { sql in
            let balances = try await ledger.balances(of: holder, heldSince: heldSince, in: sql)
            let page = try await ledger.entries(
                of: holder, after: cursor, limit: limit, counting: request.page.counting, in: sql)
            let policy = AccessPolicy(principal)
            let entries = page.entries.map {
                AccountEntry(amount: $0.amount, entry: policy.present($0.entry, of: holder))
            }
            return AccountBalance(
                holder: holder, balances: balances, data: entries, nextCursor: page.next, total: page.total)
        }
    }

    /// Records a payout (or cash paid in) within what the holder has: a payout at most the
    /// balance available (none while refunds keep it below zero), cash paid in at most the cash
    /// held (422 `insufficient_balance`).
    func payout(_ request: PayoutRequest, principal: Principal, idempotencyKey: String) async throws -> Payout {
        let policy = AccessPolicy(principal)
        let holder = try BalanceRequest(storeID: request.storeID, courierID: request.courierID).holder()
        guard policy.canSeeBalance(of: holder) else { throw Self.missing(holder) }
        guard policy.canRecordPayouts else {
            throw OrderlyError(.permissionDenied, "only admins and accountants record payouts")
        }
        let draft = try request.payout.validated()
        if case .store(let store) = holder {
            // The store must exist (an admin may name any id).
            _ = try await catalog.call(
                CatalogAPI.getStore, ResourceRef(id: store), options: WireCallOptions(principal: principal))
        }
        let (ledger, heldSince, account) = (self.ledger, self.heldSince, Ledger.accounts(of: holder).earned.key)
        return try await idempotency.write(
            key: idempotencyKey, caller: principal.userID, scope: "payments.payouts:\(account)", request: request
        ) { transaction in
            // Every entry moving the holder's money takes this lock too: no debit lands between
            // the check and the payout.
            try await transaction.lock(.ledger(of: holder))
            let figures =
                try await ledger.balances(of: holder, heldSince: heldSince, in: transaction.sql)
                .first { $0.currency == draft.currency } ?? CurrencyBalance(currency: draft.currency)
            let limit = draft.amount > 0 ? figures.available : figures.cashHeld
            guard abs(draft.amount) <= limit else {
                throw OrderlyError(
                    .insufficientBalance,
                    draft.amount > 0
                        ? "at most \(limit) \(draft.currency) is available to pay out"
                        : "at most \(limit) \(draft.currency) of cash is held to pay in",
                    details: ["amount": .int(limit)])
            }
            let payout = Payout(
                id: draft.id ?? PayoutID(), holder: holder, amount: draft.amount, currency: draft.currency,
                reference: draft.reference,
                note: draft.note, recordedBy: principal.userID, createdAt: Date.currentMillisecond)
            guard try await ledger.post(Ledger.payout(payout), in: transaction) else {
                throw OrderlyError(
                    .conflict, "a payout \(payout.id) exists already", details: ["id": .string("is taken")])
            }
            try await ledger.insert(payout, in: transaction)
            return payout
        }
    }

    private static func missing(_ holder: Ledger.Holder) -> OrderlyError {
        switch holder {
        case .store(let store): OrderlyError(.notFound, "no store \(store)")
        case .courier(let courier): OrderlyError(.notFound, "no courier \(courier)")
        }
    }
}
