import Domain
import Storage

/// The payments service's locks. The ledger's holders' locks are taken last, in the order of their
/// names.
extension Lock {
    /// A payment's every change: refunds, provider reports, the till.
    static func payment(_ id: PaymentID) -> Lock { Lock("payments.payment", id) }
    /// An order's payments: what is left to pay of it, and which of their tips its courier is
    /// credited with.
    static func payments(of order: OrderID) -> Lock { Lock("payments.order", order) }
    /// The accounts of a store or a courier, which every entry moving their money and every
    /// payout from them takes, so that a payout's check of the balance sees every debit before it.
    static func ledger(of holder: Ledger.Holder) -> Lock {
        Lock("payments.ledger", Ledger.accounts(of: holder).earned.key)
    }
    /// A customer's record.
    static func customer(_ id: CustomerID) -> Lock { Lock("payments.customer", id) }
    /// The link of a user's account to one customer record of a store.
    static func customerLink(of user: UserID, in store: StoreID) -> Lock {
        Lock("payments.customers.user", "\(store):\(user)")
    }
    /// A customer's device.
    static func customerDevice(_ id: CustomerDeviceID) -> Lock { Lock("payments.customer_device", id) }
    /// A card.
    static func card(_ id: CardID) -> Lock { Lock("payments.card", id) }
    /// A card's printed number within its store.
    static func cardNumber(_ uid: String, in store: StoreID) -> Lock { Lock("payments.cards.uid", "\(store):\(uid)") }
    /// A staff member's shift: clocking in and out, and the cash it counts.
    static func shift(of user: UserID) -> Lock { Lock("shifts.shift", user) }
}
