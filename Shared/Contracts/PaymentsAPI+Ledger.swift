public import Domain
public import WireContract

extension PaymentsAPI {
    /// A store's or a courier's balances and the entries that moved them.
    public static let balance = WireMethod<BalanceRequest, AccountBalance>(
        "payments.ledger.balance", safeToRetry: true)
    /// Records a payout to a store or a courier, or cash paid in by one.
    public static let recordPayout = WireMethod<PayoutRequest, Payout>("payments.ledger.payout", safeToRetry: false)
}
