import Domain
import Foundation
import Testing

/// The ledger's rules: every kind of entry balances, each from the right account, and refunds
/// give back exactly the commission a payment took.
@Suite("Ledger")
struct LedgerTests {
    static let store = StoreID()
    static let courier = UserID()
    static let now = Date.currentMillisecond

    static func payment(_ method: PaymentMethod, subtotal: Int64, tip: Int64, onDelivery: Bool = false) -> Payment {
        var payment = Payment(
            id: PaymentID(), storeID: store, orderID: OrderID(), subtotal: subtotal, tip: tip, currency: .ils,
            method: method, status: .completed, staffID: onDelivery ? courier : UserID(), createdAt: now)
        payment.collectedOnDelivery = onDelivery
        return payment
    }

    static func refund(_ amount: Int64, of payment: Payment) -> Refund {
        Refund(
            id: RefundID(), paymentID: payment.id, storeID: store, amount: amount, currency: .ils, reason: "r",
            restockLines: [], receiptID: ReceiptID(), staffID: UserID(), createdAt: now)
    }

    @Test("a payment comes from where the money is and credits the store less the commission on it without its tip")
    func payments() {
        let cases: [(Payment, LedgerAccount)] = [
            (Self.payment(.card, subtotal: 10_000, tip: 500), .platformFunds),
            (Self.payment(.cash, subtotal: 10_000, tip: 500), .storeCash(Self.store)),
            (Self.payment(.cash, subtotal: 10_000, tip: 500, onDelivery: true), .courierCash(Self.courier)),
        ]
        for (payment, source) in cases {
            let entry = Ledger.payment(payment, commissionBP: 1250, at: Self.now)
            #expect(entry.isBalanced && entry.reference == "payment:\(payment.id)")
            #expect(entry.amount(in: source) == -10_500)
            #expect(entry.amount(in: .platformCommission) == 1250 && entry.commission == 1250)
            #expect(entry.amount(in: .store(Self.store)) == 10_500 - 1250)
        }
        let free = Ledger.payment(Self.payment(.card, subtotal: 999, tip: 0), commissionBP: 0, at: Self.now)
        #expect(free.postings.count == 2 && free.isBalanced)
        // Rounded down, never more than the amount.
        #expect(Ledger.commission(on: 999, bp: 1) == 0 && Ledger.commission(on: 10_000, bp: 10_000) == 10_000)
        #expect(Ledger.commission(on: Payment.maximumAmount, bp: 10_000) == Payment.maximumAmount)
    }

    @Test("refunds give back the commission in proportion, exactly all of it once the whole payment is refunded")
    func refunds() {
        for amounts: [Int64] in [[333, 333, 334], [1, 998, 1], [1000], [7, 13, 980]] {
            var payment = Self.payment(.card, subtotal: 1000, tip: 0)
            let commission = Ledger.commission(of: payment, bp: 1999)
            var givenBack: Int64 = 0
            var storeMoved: Int64 = 0
            for amount in amounts {
                payment.refundedAmount += amount
                let entry = Ledger.refund(
                    Self.refund(amount, of: payment), of: payment, commissionBP: 1999, at: Self.now)
                #expect(entry.isBalanced && entry.amount(in: .platformFunds) == amount)
                givenBack -= entry.commission ?? 0
                storeMoved += entry.amount(in: .store(Self.store))
            }
            #expect(givenBack == commission, "\(amounts)")
            #expect(storeMoved == -(1000 - commission), "\(amounts)")
        }
    }

    @Test("a refund of cash is handed back from the store's till, whoever collected it; the courier's debt stays")
    func cashRefunds() throws {
        for onDelivery in [true, false] {
            var collected = Self.payment(.cash, subtotal: 2000, tip: 0, onDelivery: onDelivery)
            collected.refundedAmount = 500
            let entry = Ledger.refund(Self.refund(500, of: collected), of: collected, commissionBP: 0, at: Self.now)
            #expect(entry.isBalanced && entry.amount(in: .storeCash(Self.store)) == 500)
            #expect(entry.amount(in: .courierCash(Self.courier)) == 0 && entry.courierID == nil)
        }
        // A refund an earlier release booked from the courier's cash is corrected: their debt back,
        // the store's till cash out.
        let collected = Self.payment(.cash, subtotal: 2000, tip: 0, onDelivery: true)
        var wrong = Ledger.refund(Self.refund(500, of: collected), of: collected, commissionBP: 0, at: Self.now)
        wrong.postings = wrong.postings.map {
            $0.account == LedgerAccount.storeCash(Self.store).key ? LedgerPosting(.courierCash(Self.courier), 500) : $0
        }
        let correction = try #require(Ledger.correction(ofCourierRefund: wrong, at: Self.now))
        #expect(correction.isBalanced && correction.reference == "correction:\(wrong.reference)")
        #expect(correction.amount(in: .courierCash(Self.courier)) == -500)
        #expect(correction.amount(in: .storeCash(Self.store)) == 500)
        let right = Ledger.refund(Self.refund(500, of: collected), of: collected, commissionBP: 0, at: Self.now)
        #expect(Ledger.correction(ofCourierRefund: right, at: Self.now) == nil)
    }

    @Test("a delivery moves its fee and the tips paid from the store to the courier; payouts pay out, or take cash in")
    func deliveriesAndPayouts() throws {
        let draft = try OrderDraft(
            fulfillment: .delivery, recipientFirstName: "A", recipientLastName: "B", phone: "050 1234567",
            street: "Herzl", buildingNo: "12", boxesCount: 1
        ).validated()
        var order = Order(
            id: OrderID(), number: 1, storeID: Self.store, status: .delivered, version: 1, draft: draft,
            pickupAddress: nil, quote: DeliveryQuote(fee: 3500, multiplier: 1), currency: .ils, createdBy: UserID(),
            createdAt: Self.now)
        #expect(Ledger.delivery(order, paid: [], at: Self.now) == nil, "no courier")
        order.courierID = Self.courier
        order.tip = 700
        var paid = Self.payment(.cash, subtotal: 5000, tip: 700)
        paid.orderID = order.id
        let delivery = try #require(Ledger.delivery(order, paid: [paid], at: Self.now))
        #expect(delivery.isBalanced && delivery.amount(in: .courier(Self.courier)) == 4200)
        #expect(delivery.amount(in: .store(Self.store)) == -4200 && delivery.reference == "delivery:\(order.id)")
        #expect(delivery.tipsOf == [paid.id])
        // A tip promised and not paid (the order rung up at the till without it) credits the fee alone.
        var untipped = paid
        untipped.tip = 0
        let feeOnly = try #require(Ledger.delivery(order, paid: [untipped], at: Self.now))
        #expect(feeOnly.amount(in: .courier(Self.courier)) == 3500 && feeOnly.tipsOf == nil)
        // A refund before the delivery gives back the tip first, as the order's figures count it
        // (`Payment.tipShare`): 500 of the 700 refunded leaves 200 to the courier, 900 none.
        var refunded = paid
        refunded.refundedAmount = 500
        refunded.status = .partiallyRefunded
        #expect(refunded.orderShare + refunded.tipShare == refunded.amount - 500)
        #expect(Ledger.delivery(order, paid: [refunded], at: Self.now)?.amount(in: .courier(Self.courier)) == 3700)
        refunded.refundedAmount = 900
        #expect(refunded.orderShare + refunded.tipShare == refunded.amount - 900)
        let untippedAfterRefund = try #require(Ledger.delivery(order, paid: [refunded], at: Self.now))
        #expect(untippedAfterRefund.amount(in: .courier(Self.courier)) == 3500 && untippedAfterRefund.tipsOf == nil)
        // Nor does a payment that has not completed, or another order's.
        var pending = paid
        pending.status = .pending
        var other = paid
        other.orderID = OrderID()
        #expect(
            Ledger.delivery(order, paid: [pending, other], at: Self.now)?.amount(in: .courier(Self.courier)) == 3500)
        // A tip paid after the delivery follows on its own, once: not for a payment the delivery counted.
        #expect(Ledger.tip(of: paid, after: delivery, at: Self.now) == nil)
        var later = Self.payment(.card, subtotal: 1000, tip: 300)
        later.orderID = order.id
        let tip = try #require(Ledger.tip(of: later, after: feeOnly, at: Self.now))
        #expect(tip.isBalanced && tip.reference == "tip:\(later.id)" && tip.kind == .tip)
        #expect(tip.amount(in: .courier(Self.courier)) == 300 && tip.amount(in: .store(Self.store)) == -300)
        // Refunded before its completion was booked: what is left of the tip, nothing once it is all given back.
        later.status = .partiallyRefunded
        later.refundedAmount = 200
        #expect(Ledger.tip(of: later, after: feeOnly, at: Self.now)?.amount(in: .courier(Self.courier)) == 100)
        later.refundedAmount = 300
        #expect(Ledger.tip(of: later, after: feeOnly, at: Self.now) == nil)

        let out = Payout(
            id: PayoutID(), holder: .store(Self.store), amount: 5000, currency: .ils, reference: nil, note: nil,
            recordedBy: UserID(), createdAt: Self.now)
        let paidOut = Ledger.payout(out)
        #expect(paidOut.isBalanced && paidOut.amount(in: .store(Self.store)) == -5000)
        let handedIn = Ledger.payout(
            Payout(
                id: PayoutID(), holder: .courier(Self.courier), amount: -3000, currency: .ils, reference: nil,
                note: nil, recordedBy: UserID(), createdAt: Self.now))
        #expect(handedIn.isBalanced && handedIn.amount(in: .courierCash(Self.courier)) == 3000)
        #expect(handedIn.amount(in: .platformFunds) == -3000)
    }

    @Test("accounts are written and read back by their keys")
    func accountKeys() {
        let accounts: [LedgerAccount] = [
            .store(Self.store), .storeCash(Self.store), .courier(Self.courier), .courierCash(Self.courier),
            .platformFunds, .platformCommission,
        ]
        for account in accounts { #expect(LedgerAccount(key: account.key) == account) }
        #expect(LedgerAccount(key: "store:nope") == nil && LedgerAccount(key: "bank:1") == nil)
    }
}
