public import Foundation

/// An account of the platform's double-entry ledger, in one currency each: what the platform owes
/// the holder (positive) or the holder the platform (negative). A store and a courier each have
/// two: what they earned, and the cash they took in and hold (negative). What the platform owes
/// them now is the two together.
public enum LedgerAccount: Hashable, Sendable {
    /// What a store has earned from the platform and not been paid out.
    case store(StoreID)
    /// The cash a store's staff took in at its till, which the store holds.
    case storeCash(StoreID)
    /// What a courier has earned (delivery fees and tips) and not been paid out.
    case courier(UserID)
    /// The cash a courier collected on delivery, which the courier holds.
    case courierCash(UserID)
    /// The money the platform's payment providers took in and the platform holds.
    case platformFunds
    /// The platform's commission.
    case platformCommission

    /// The account as stored: `store:<id>`, `store_cash:<id>`, `courier:<id>`, `courier_cash:<id>`,
    /// `platform:funds`, `platform:commission`.
    public var key: String {
        switch self {
        case .store(let store): "store:\(store)"
        case .storeCash(let store): "store_cash:\(store)"
        case .courier(let courier): "courier:\(courier)"
        case .courierCash(let courier): "courier_cash:\(courier)"
        case .platformFunds: "platform:funds"
        case .platformCommission: "platform:commission"
        }
    }

    public init?(key: String) {
        switch key {
        case "platform:funds": self = .platformFunds
        case "platform:commission": self = .platformCommission
        default:
            let parts = key.split(separator: ":", maxSplits: 1).map(String.init)
            guard parts.count == 2 else { return nil }
            switch parts[0] {
            case "store": guard let id = StoreID(parts[1]) else { return nil }; self = .store(id)
            case "store_cash": guard let id = StoreID(parts[1]) else { return nil }; self = .storeCash(id)
            case "courier": guard let id = UserID(parts[1]) else { return nil }; self = .courier(id)
            case "courier_cash": guard let id = UserID(parts[1]) else { return nil }; self = .courierCash(id)
            default: return nil
            }
        }
    }

    /// The store or courier whose account it is, whose balance is kept as it moves; nil for the
    /// platform's (summed when asked, so that no row is written by every payment).
    public var holder: Ledger.Holder? {
        switch self {
        case .store(let store), .storeCash(let store): .store(store)
        case .courier(let courier), .courierCash(let courier): .courier(courier)
        case .platformFunds, .platformCommission: nil
        }
    }
}

/// One account's share of an entry: positive credits the holder, negative debits them.
public struct LedgerPosting: Hashable, Sendable, Codable {
    public var account: String
    public var amount: Int64

    public init(_ account: LedgerAccount, _ amount: Int64) {
        self.account = account.key
        self.amount = amount
    }
}

/// What moved money: a payment completed, part of one refunded, a delivery's fee and the tips paid
/// going to its courier, a tip paid after its order was delivered, a payout, and a correction of
/// entries an earlier release booked wrongly.
public enum LedgerEntryKind: String, Hashable, Sendable, Codable {
    case payment, refund, delivery, tip, payout, correction
}

/// One movement of money, recorded once (its `reference` names what caused it) as postings
/// that add up to zero.
public struct LedgerEntry: Hashable, Sendable, Codable {
    public var id: UUID
    public var kind: LedgerEntryKind
    /// What caused it, once: `payment:<id>`, `refund:<id>`, `delivery:<order id>`, `tip:<payment id>`,
    /// `payout:<id>`, `correction:<what it corrects>`.
    public var reference: String
    public var currency: CurrencyCode
    public var postings: [LedgerPosting]
    public var storeID: StoreID?
    public var courierID: UserID?
    public var paymentID: PaymentID?
    public var refundID: RefundID?
    public var orderID: OrderID?
    public var payoutID: PayoutID?
    /// The commission taken (or given back, negative) in this entry; nil where it is not the
    /// reader's to know (`AccessPolicy.present(_:of:)`).
    public var commission: Int64?
    /// A delivery's: the payments whose tips it credits to the courier (a tip paid later gets an
    /// entry of its own).
    public var tipsOf: [PaymentID]?
    public var createdAt: Date

    public init(
        kind: LedgerEntryKind, reference: String, currency: CurrencyCode, postings: [LedgerPosting],
        storeID: StoreID?, courierID: UserID? = nil, paymentID: PaymentID? = nil, refundID: RefundID? = nil,
        orderID: OrderID? = nil, payoutID: PayoutID? = nil, commission: Int64 = 0, tipsOf: [PaymentID]? = nil,
        at createdAt: Date
    ) {
        self.id = UUID.random()
        self.kind = kind
        self.reference = reference
        self.currency = currency
        // One posting per account, none of nothing.
        var merged: [String: Int64] = [:]
        var order: [String] = []
        for posting in postings {
            if merged[posting.account] == nil { order.append(posting.account) }
            merged[posting.account, default: 0] += posting.amount
        }
        self.postings = order.compactMap { account in
            merged[account].flatMap { $0 == 0 ? nil : LedgerPosting(account: account, amount: $0) }
        }
        self.storeID = storeID
        self.courierID = courierID
        self.paymentID = paymentID
        self.refundID = refundID
        self.orderID = orderID
        self.payoutID = payoutID
        self.commission = commission
        self.tipsOf = tipsOf
        self.createdAt = createdAt
    }

    enum CodingKeys: String, CodingKey {
        case id, kind, reference, currency, postings, commission
        case storeID = "store_id"
        case courierID = "courier_id"
        case paymentID = "payment_id"
        case refundID = "refund_id"
        case orderID = "order_id"
        case payoutID = "payout_id"
        case tipsOf = "tips_of"
        case createdAt = "created_at"
    }

    /// Written as the API writes every id: a lower-case UUID.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id.lowercasedText, forKey: .id)
        try container.encode(kind, forKey: .kind)
        try container.encode(reference, forKey: .reference)
        try container.encode(currency, forKey: .currency)
        try container.encode(postings, forKey: .postings)
        try container.encodeIfPresent(commission, forKey: .commission)
        try container.encodeIfPresent(tipsOf, forKey: .tipsOf)
        try container.encodeIfPresent(storeID, forKey: .storeID)
        try container.encodeIfPresent(courierID, forKey: .courierID)
        try container.encodeIfPresent(paymentID, forKey: .paymentID)
        try container.encodeIfPresent(refundID, forKey: .refundID)
        try container.encodeIfPresent(orderID, forKey: .orderID)
        try container.encodeIfPresent(payoutID, forKey: .payoutID)
        try container.encode(createdAt, forKey: .createdAt)
    }

    /// Whether its debits equal its credits.
    public var isBalanced: Bool { postings.reduce(0) { $0 + $1.amount } == 0 }

    /// What it moved in `account`: the account's posting, or 0.
    public func amount(in account: LedgerAccount) -> Int64 {
        postings.first { $0.account == account.key }?.amount ?? 0
    }
}

extension LedgerPosting {
    init(account: String, amount: Int64) {
        self.account = account
        self.amount = amount
    }
}

/// The ledger's rules: which accounts each movement of money credits and debits.
///
/// - A completed payment of `amount` comes from where the money is (the platform's funds for a
///   provider's payment, the courier for cash collected on delivery, the store's till cash for
///   cash taken at the till) and credits the store with it less the platform's commission,
///   `commission_bp` of the amount without its tip, as the store's setting was when the payment
///   was made.
/// - A refund is paid from where the money goes back from: a provider's payment from the
///   platform's funds, cash (taken at the till or collected on delivery) from the store's till
///   cash, as cash is handed back only from a drawer; a courier's cash moves only when they
///   collect it or pay it in. The commission on it goes back to the store: each refund the
///   commission's share of what has been refunded so far, so that refunds of a whole payment
///   give back exactly its commission.
/// - A delivered order's delivery fee and the tips its payments paid go from its store to the
///   courier who delivered it; a tip paid after the delivery follows on its own. A tip promised
///   and not paid credits nobody.
/// - A payout pays out of the platform's funds what the store or courier earned; a negative one
///   records cash they paid in, out of the cash they hold.
public enum Ledger {
    /// The commission on `amount` at `bp` basis points, rounded down.
    public static func commission(on amount: Int64, bp: Int) -> Int64 {
        amount > 0 && bp > 0 ? Int64(10_000).dividingFullWidth(amount.multipliedFullWidth(by: Int64(bp))).quotient : 0
    }

    /// Where a payment's money is once it completes.
    public static func source(of payment: Payment) -> LedgerAccount {
        guard payment.method == .cash else { return .platformFunds }
        return payment.collectedOnDelivery ? .courierCash(payment.staffID) : .storeCash(payment.storeID)
    }

    /// Where a refund of `payment` is paid from: the platform's funds for a provider's payment,
    /// the store's till cash for cash, wherever it was taken.
    public static func refundSource(of payment: Payment) -> LedgerAccount {
        payment.method == .cash ? .storeCash(payment.storeID) : .platformFunds
    }

    /// The commission of `payment` at `bp`: on its amount without the tip.
    public static func commission(of payment: Payment, bp: Int) -> Int64 {
        commission(on: payment.amount - payment.tip, bp: bp)
    }

    /// The entry of `payment`, completed, at the store's `commission_bp` when it was made.
    public static func payment(_ payment: Payment, commissionBP bp: Int, at now: Date) -> LedgerEntry {
        let commission = commission(of: payment, bp: bp)
        return LedgerEntry(
            kind: .payment, reference: "payment:\(payment.id)", currency: payment.currency,
            postings: [
                LedgerPosting(source(of: payment), -payment.amount),
                LedgerPosting(.store(payment.storeID), payment.amount - commission),
                LedgerPosting(.platformCommission, commission),
            ],
            storeID: payment.storeID, courierID: payment.collectedOnDelivery ? payment.staffID : nil,
            paymentID: payment.id, orderID: payment.orderID, commission: commission, at: now)
    }

    /// The entry of `refund`, of `payment` as it was after it (its `refunded_amount` counting it),
    /// made at `commission_bp`.
    public static func refund(_ refund: Refund, of payment: Payment, commissionBP bp: Int, at now: Date)
        -> LedgerEntry
    {
        let commission = commission(of: payment, bp: bp)
        let after = min(payment.refundedAmount, payment.amount)
        let before = max(0, after - refund.amount)
        // The commission's share of what has been refunded, after this refund and before it.
        func share(_ refunded: Int64) -> Int64 {
            payment.amount <= 0
                ? 0 : payment.amount.dividingFullWidth(commission.multipliedFullWidth(by: refunded)).quotient
        }
        let givenBack = share(after) - share(before)
        return LedgerEntry(
            kind: .refund, reference: "refund:\(refund.id)", currency: payment.currency,
            postings: [
                LedgerPosting(refundSource(of: payment), refund.amount),
                LedgerPosting(.store(payment.storeID), -(refund.amount - givenBack)),
                LedgerPosting(.platformCommission, -givenBack),
            ],
            storeID: payment.storeID, paymentID: payment.id, refundID: refund.id, orderID: payment.orderID,
            commission: -givenBack, at: now)
    }

    /// The entry of `order`, delivered: its delivery fee and the tips of `paid`, its payments
    /// completed so far (what refunds left of each, `Payment.tipShare`), from its store to its
    /// courier; nil without a courier, or with nothing to move. The entry lists the payments
    /// whose tips it moved.
    public static func delivery(_ order: Order, paid: [Payment], at now: Date) -> LedgerEntry? {
        let tipped = paid.filter { $0.tipShare > 0 && $0.orderID == order.id && $0.hasCompleted }
        let share = order.deliveryFee + tipped.reduce(0) { $0 + $1.tipShare }
        guard let courier = order.courierID, share > 0 else { return nil }
        return LedgerEntry(
            kind: .delivery, reference: "delivery:\(order.id)", currency: order.currency,
            postings: [LedgerPosting(.store(order.storeID), -share), LedgerPosting(.courier(courier), share)],
            storeID: order.storeID, courierID: courier, orderID: order.id,
            tipsOf: tipped.isEmpty ? nil : tipped.map(\.id), at: now)
    }

    /// The entry of `payment`'s tip, completed after its order's `delivery` entry (which did not
    /// count it): what refunds left of it (`tipShare`) from the store to the courier who delivered
    /// the order; nil when the delivery counted it already, or nothing is left of a tip.
    public static func tip(of payment: Payment, after delivery: LedgerEntry, at now: Date) -> LedgerEntry? {
        let tip = payment.tipShare
        guard tip > 0, payment.hasCompleted, let courier = delivery.courierID,
            delivery.orderID == payment.orderID, !(delivery.tipsOf ?? []).contains(payment.id)
        else { return nil }
        return LedgerEntry(
            kind: .tip, reference: "tip:\(payment.id)", currency: payment.currency,
            postings: [LedgerPosting(.store(payment.storeID), -tip), LedgerPosting(.courier(courier), tip)],
            storeID: payment.storeID, courierID: courier, paymentID: payment.id, orderID: payment.orderID, at: now)
    }

    /// The entry correcting `refund`'s, which an earlier release booked from the cash of the
    /// courier who collected the payment on delivery instead of the store's till cash: it moves
    /// the amount back to the courier's cash and out of the store's; nil for any other entry.
    public static func correction(ofCourierRefund refund: LedgerEntry, at now: Date) -> LedgerEntry? {
        guard refund.kind == .refund, let store = refund.storeID,
            let posting = refund.postings.first(where: {
                if case .courierCash? = LedgerAccount(key: $0.account) { true } else { false }
            }),
            let courier = LedgerAccount(key: posting.account)
        else { return nil }
        return LedgerEntry(
            kind: .correction, reference: "correction:\(refund.reference)", currency: refund.currency,
            postings: [LedgerPosting(courier, -posting.amount), LedgerPosting(.storeCash(store), posting.amount)],
            storeID: store, courierID: refund.courierID, paymentID: refund.paymentID, refundID: refund.refundID,
            orderID: refund.orderID, at: now)
    }

    /// The entry of `payout`: a positive `amount` paid out of the platform's funds from what the
    /// holder earned, a negative one cash the holder paid in from what they hold.
    public static func payout(_ payout: Payout) -> LedgerEntry {
        let (earned, cash) = accounts(of: payout.holder)
        return LedgerEntry(
            kind: .payout, reference: "payout:\(payout.id)", currency: payout.currency,
            postings: [
                LedgerPosting(payout.amount > 0 ? earned : cash, -payout.amount),
                LedgerPosting(.platformFunds, payout.amount),
            ],
            storeID: payout.storeID, courierID: payout.courierID, payoutID: payout.id, at: payout.createdAt)
    }
}

extension Ledger {
    /// A store or a courier, as the ledger holds their money.
    public enum Holder: Hashable, Sendable {
        case store(StoreID)
        case courier(UserID)
    }

    /// The holder's two accounts: what they earned, and the cash they hold.
    public static func accounts(of holder: Holder) -> (earned: LedgerAccount, cash: LedgerAccount) {
        switch holder {
        case .store(let store): (.store(store), .storeCash(store))
        case .courier(let courier): (.courier(courier), .courierCash(courier))
        }
    }
}

public typealias PayoutID = Identifier<PayoutTag>
public enum PayoutTag {}

/// Money paid out to a store or a courier (what they earned), or paid in by one (cash they held),
/// recorded by an admin or an accountant with the reference of the transfer.
public struct Payout: Hashable, Sendable, Codable {
    public var id: PayoutID
    /// Whose money it moved.
    public var holder: Ledger.Holder
    /// Paid out when positive, paid in when negative.
    public var amount: Int64
    public var currency: CurrencyCode
    /// The bank transfer's (or other) reference.
    public var reference: String?
    public var note: String?
    public var recordedBy: UserID
    public var createdAt: Date

    public init(
        id: PayoutID, holder: Ledger.Holder, amount: Int64, currency: CurrencyCode, reference: String?,
        note: String?, recordedBy: UserID, createdAt: Date
    ) {
        self.id = id
        self.holder = holder
        self.amount = amount
        self.currency = currency
        self.reference = reference
        self.note = note
        self.recordedBy = recordedBy
        self.createdAt = createdAt
    }

    public var storeID: StoreID? {
        if case .store(let store) = holder { return store }
        return nil
    }

    public var courierID: UserID? {
        if case .courier(let courier) = holder { return courier }
        return nil
    }

    enum CodingKeys: String, CodingKey {
        case id, amount, currency, reference, note
        case storeID = "store_id"
        case courierID = "courier_id"
        case recordedBy = "recorded_by"
        case createdAt = "created_at"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(PayoutID.self, forKey: .id)
        if let store = try container.decodeIfPresent(StoreID.self, forKey: .storeID) {
            holder = .store(store)
        } else {
            holder = .courier(try container.decode(UserID.self, forKey: .courierID))
        }
        amount = try container.decode(Int64.self, forKey: .amount)
        currency = try container.decode(CurrencyCode.self, forKey: .currency)
        reference = try container.decodeIfPresent(String.self, forKey: .reference)
        note = try container.decodeIfPresent(String.self, forKey: .note)
        recordedBy = try container.decode(UserID.self, forKey: .recordedBy)
        createdAt = try container.decode(Date.self, forKey: .createdAt)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encodeIfPresent(storeID, forKey: .storeID)
        try container.encodeIfPresent(courierID, forKey: .courierID)
        try container.encode(amount, forKey: .amount)
        try container.encode(currency, forKey: .currency)
        try container.encodeIfPresent(reference, forKey: .reference)
        try container.encodeIfPresent(note, forKey: .note)
        try container.encode(recordedBy, forKey: .recordedBy)
        try container.encode(createdAt, forKey: .createdAt)
    }
}
