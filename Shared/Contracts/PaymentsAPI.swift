public import Domain
import Foundation
public import WireContract

/// The payments service's methods.
public enum PaymentsAPI {
    public static let service = "payments"
    /// Only the gateway calls it.
    public static let callers = WireCallers([GatewayAPI.service: WireCallers.everything])
    /// Admins and the store's users (`store_id`); needs an idempotency key. Prices catalog
    /// items from the catalog and holds their stock; the payment starts `pending`.
    public static let createPayment = WireMethod<PaymentDraft, Payment>("payments.create", safeToRetry: false)
    public static let getPayment = WireMethod<ResourceRef<PaymentID>, Payment>("payments.get", safeToRetry: true)
    /// The cashier completes a pending cash payment with the cash handed over.
    public static let confirmCash = WireMethod<CashConfirmation, Payment>("payments.confirm", safeToRetry: false)
    /// Staff cancel a pending or confirmed payment.
    public static let cancelPayment = WireMethod<ResourceRef<PaymentID>, Payment>(
        "payments.cancel", safeToRetry: false)
    /// A payment provider's signed report, as the gateway received it; no principal.
    public static let providerEvent = WireMethod<SignedProviderEvent, ProviderEventOutcome>(
        "payments.provider_events", safeToRetry: true)
    public static let getReceipt = WireMethod<ResourceRef<ReceiptID>, Receipt>(
        "payments.receipts.get", safeToRetry: true)
    /// The caller's own payments, in every store, oldest first: those made out to their account
    /// and those they took (a courier's cash at the door). What their export holds of payments.
    public static let ownPayments = WireMethod<PageRequest, Page<Payment>>("payments.own", safeToRetry: true)
    /// Admins and the store's users: a store's payments, newest first, filtered.
    public static let listPayments = WireMethod<PaymentListRequest, Page<Payment>>("payments.list", safeToRetry: true)
    /// Admins and the store's users: a store's receipts, newest first; one `number` for a reprint.
    public static let listReceipts = WireMethod<ReceiptListRequest, Page<Receipt>>(
        "payments.receipts.list", safeToRetry: true)
    /// Store users clock themselves in; owners and managers their staff, admins anyone.
    public static let clockIn = WireMethod<ClockRequest, Shift>("payments.shifts.clock_in", safeToRetry: false)
    public static let clockOut = WireMethod<ClockRequest, Shift>("payments.shifts.clock_out", safeToRetry: false)
    /// Admins and the store's owners and managers: its shifts, newest first.
    public static let listShifts = WireMethod<ShiftListRequest, Page<Shift>>("payments.shifts.list", safeToRetry: true)
    /// The open shifts of some users (the gateway's `is_clocked_in`).
    public static let openShifts = WireMethod<OpenShiftsRequest, [Shift]>("payments.shifts.open", safeToRetry: true)
    /// Admins, and the store's owners and managers: what the store took over some days.
    public static let stats = WireMethod<StatsRequest, StoreStats>("payments.stats", safeToRetry: true)
    /// Admins, and the store's owners and managers: each staff member's shifts, hours and sales
    /// over some days.
    public static let shiftSummary = WireMethod<StatsRequest, ShiftSummary>(
        "payments.shifts.summary", safeToRetry: true)
    /// Admins and the store's users: the store's payments written after a cursor (staff: those
    /// they took), for a till that was offline.
    public static let paymentChanges = WireMethod<PaymentChangesRequest, PaymentChangesPage>(
        "payments.changes", safeToRetry: true)
    /// Staff give back part or all of what is left of a completed payment; needs an
    /// idempotency key.
    public static let refund = WireMethod<RefundRequest, Refund>("payments.refunds.create", safeToRetry: false)
    /// Whether the caller may cancel the order, as far as its payments go: a cancel refunds a
    /// customer's completed card payments in full, which only whoever may refund that amount
    /// does (`AccessPolicy.mayRefundByCancelling`; 422 `refund_not_allowed` otherwise). The
    /// gateway asks before it forwards a cancel; the refund itself follows the cancel's event.
    public static let checkCancelRefund = WireMethod<ResourceRef<OrderID>, CancelRefundCheck>(
        "payments.refunds.check_cancel", safeToRetry: true)

    /// How long a payment stays pending unless its request says otherwise (15 minutes), and the
    /// longest it may (an hour).
    public static let defaultPendingSeconds = 900
    public static let maximumPendingSeconds = 3_600
    /// How long the stock held for a payment outlives the payment's own expiry: time for the
    /// catalog to see the payment move on before the hold lapses by itself.
    public static let stockGraceSeconds = 600
    /// How far a provider's signature time may be from ours, either way (five minutes).
    public static let signatureToleranceSeconds = 300

    /// The events the payments service publishes on `orderly:events:payments`, each with the
    /// payment as its payload: one when it is created and one per status it reaches.
    public enum Events {
        public static let created = "payment.created"
        public static let confirmed = "payment.confirmed"
        public static let processing = "payment.processing"
        public static let completed = "payment.completed"
        public static let failed = "payment.failed"
        public static let cancelled = "payment.cancelled"
        public static let expired = "payment.expired"
        /// A refund of a completed payment; its payload is a `PaymentRefunded`.
        public static let refunded = "payment.refunded"
        /// A shift began or ended; the shift is the payload.
        public static let clockedIn = "shift.clocked_in"
        public static let clockedOut = "shift.clocked_out"
        /// A card was linked to a customer record (registered with one, or changed to one); its
        /// payload is a `CardLinked`.
        public static let cardLinked = "card.linked"

        /// The event of a payment reaching `status` in its lifecycle (refunds have `refunded`).
        public static func reached(_ status: PaymentStatus) -> String {
            status == .pending ? created : "payment.\(status.rawValue)"
        }
    }
}

/// The store's payments written after `since` ("0" for every one).
public typealias PaymentChangesRequest = StoreChangesRequest

/// Payments as they are now, each written after the cursor asked from, oldest change first.
public typealias PaymentChangesPage = ChangesPage<Payment>
