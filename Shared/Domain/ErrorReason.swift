/// A machine-readable refinement of an error's code (`insufficient_stock` of `conflict`), which a
/// client branches on. Each one the suite answers is declared here once, beside the code it
/// refines, so a typo does not compile and every comparison (`error.reason == .insufficientStock`)
/// names one; the OpenAPI document lists each operation's as a closed set (`x-reasons`).
public struct ErrorReason: Hashable, Sendable, Codable, CustomStringConvertible {
    public let rawValue: String
    /// The code an error with this reason has; nil for one read from another process that this
    /// one does not declare (a newer replica's).
    public let code: ErrorCode?

    init(_ rawValue: String, _ code: ErrorCode) {
        self.rawValue = rawValue
        self.code = code
    }

    /// The reason named `rawValue`: the declared one, or an undeclared one read from elsewhere.
    public init(rawValue: String) {
        self = Self.declared.first { $0.rawValue == rawValue } ?? ErrorReason(rawValue: rawValue, code: nil)
    }

    private init(rawValue: String, code: ErrorCode?) {
        self.rawValue = rawValue
        self.code = code
    }

    public init(from decoder: any Decoder) throws {
        self.init(rawValue: try decoder.singleValueContainer().decode(String.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    public static func == (lhs: ErrorReason, rhs: ErrorReason) -> Bool { lhs.rawValue == rhs.rawValue }
    public func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }
    public var description: String { rawValue }
}

extension ErrorReason {
    // MARK: invalidArgument

    /// The request body is too large.
    public static let payloadTooLarge = ErrorReason("payload_too_large", .invalidArgument)

    // MARK: unauthenticated

    /// A provider's report is not signed by a configured secret.
    public static let badSignature = ErrorReason("bad_signature", .unauthenticated)
    /// The e-mail address or password is wrong.
    public static let invalidCredentials = ErrorReason("invalid_credentials", .unauthenticated)
    /// The access token is missing, malformed, expired or revoked.
    public static let invalidToken = ErrorReason("invalid_token", .unauthenticated)
    /// A refresh token was used twice: its family is revoked.
    public static let refreshTokenReused = ErrorReason("refresh_token_reused", .unauthenticated)
    /// A provider's report is signed too long ago.
    public static let staleSignature = ErrorReason("stale_signature", .unauthenticated)
    /// No provider of this name is configured.
    public static let unknownProvider = ErrorReason("unknown_provider", .unauthenticated)

    // MARK: permissionDenied

    /// The application to join waits for the platform's decision.
    public static let applicationPending = ErrorReason("application_pending", .permissionDenied)
    /// The application to join was rejected; `details.reason` says why.
    public static let applicationRejected = ErrorReason("application_rejected", .permissionDenied)

    // MARK: conflict

    /// Another courier claimed the order first.
    public static let alreadyClaimed = ErrorReason("already_claimed", .conflict)
    /// The user has a shift open already.
    public static let alreadyClockedIn = ErrorReason("already_clocked_in", .conflict)
    /// Something with this id, address or code exists already.
    public static let alreadyExists = ErrorReason("already_exists", .conflict)
    /// The e-mail address was verified already; nothing is mailed.
    public static let alreadyVerified = ErrorReason("already_verified", .conflict)
    /// A user with this e-mail address exists (an account made by another, or an approval).
    public static let emailTaken = ErrorReason("email_taken", .conflict)
    /// Not enough stock for a sale; `details.products` names each short product.
    public static let insufficientStock = ErrorReason("insufficient_stock", .conflict)
    /// A provider's report names another `provider_ref` than the payment's.
    public static let otherReference = ErrorReason("other_reference", .conflict)
    /// A request with this idempotency key is still running.
    public static let requestInProgress = ErrorReason("request_in_progress", .conflict)
    /// The reservation ended already, another way.
    public static let reservationClosed = ErrorReason("reservation_closed", .conflict)
    /// The reservation ran out of time.
    public static let reservationExpired = ErrorReason("reservation_expired", .conflict)
    /// The resource changed since it was read; `details.current` holds it as it is now.
    public static let versionConflict = ErrorReason("version_conflict", .conflict)

    // MARK: failedPrecondition

    /// A provider's report names another amount or currency than the payment's.
    public static let amountMismatch = ErrorReason("amount_mismatch", .failedPrecondition)
    /// The application to join was approved or rejected already.
    public static let applicationDecided = ErrorReason("application_decided", .failedPrecondition)
    /// A courier leaving still holds cash they collected for the platform.
    public static let cashOutstanding = ErrorReason("cash_outstanding", .failedPrecondition)
    /// An account is closed only once none of its orders is on its way.
    public static let ordersInProgress = ErrorReason("orders_in_progress", .failedPrecondition)
    /// The applicant has not verified their e-mail address yet.
    public static let emailUnverified = ErrorReason("email_unverified", .failedPrecondition)
    /// The order is below the store's minimum.
    public static let belowMinimum = ErrorReason("below_minimum", .failedPrecondition)
    /// The delivery's place is outside the store's delivery area.
    public static let outsideDeliveryArea = ErrorReason("outside_delivery_area", .failedPrecondition)
    /// The card tapped is not active.
    public static let cardBlocked = ErrorReason("card_blocked", .failedPrecondition)
    /// A cash payment is confirmed by the cashier, not by a provider.
    public static let cashPayment = ErrorReason("cash_payment", .failedPrecondition)
    /// The courier states the cash collected for a cash-on-delivery order.
    public static let cashRequired = ErrorReason("cash_required", .failedPrecondition)
    /// A catalog product's line takes the product's price, name and VAT rate.
    public static let catalogLine = ErrorReason("catalog_line", .failedPrecondition)
    /// A product is priced in another currency than the order's.
    public static let currencyMismatch = ErrorReason("currency_mismatch", .failedPrecondition)
    /// The reservation holds stock for an order and ends with it.
    public static let heldForOrder = ErrorReason("held_for_order", .failedPrecondition)
    /// The reservation holds stock for a payment and ends with it.
    public static let heldForPayment = ErrorReason("held_for_payment", .failedPrecondition)
    /// The idempotency key was used with another request.
    public static let idempotencyKeyReused = ErrorReason("idempotency_key_reused", .failedPrecondition)
    /// Not an action the status allows; `details.allowed` lists those it does.
    public static let illegalTransition = ErrorReason("illegal_transition", .failedPrecondition)
    /// A payout asks for more than the balance holds.
    public static let insufficientBalance = ErrorReason("insufficient_balance", .failedPrecondition)
    /// The card tapped is another customer's.
    public static let notCardCustomer = ErrorReason("not_card_customer", .failedPrecondition)
    /// A cash-on-delivery order is paid to the courier.
    public static let notCardOrder = ErrorReason("not_card_order", .failedPrecondition)
    /// The staff member has no open shift at the store.
    public static let notClockedIn = ErrorReason("not_clocked_in", .failedPrecondition)
    /// The courier is off duty.
    public static let offDuty = ErrorReason("off_duty", .failedPrecondition)
    /// The order is cancelled.
    public static let orderCancelled = ErrorReason("order_cancelled", .failedPrecondition)
    /// A courier carries the order.
    public static let orderClaimed = ErrorReason("order_claimed", .failedPrecondition)
    /// The order is past the status its lines change in.
    public static let orderLocked = ErrorReason("order_locked", .failedPrecondition)
    /// The order is paid in full.
    public static let orderPaid = ErrorReason("order_paid", .failedPrecondition)
    /// Another provider handles the payment.
    public static let otherProvider = ErrorReason("other_provider", .failedPrecondition)
    /// The payment's time to be paid ran out.
    public static let paymentExpired = ErrorReason("payment_expired", .failedPrecondition)
    /// The order waits for its payment.
    public static let paymentRequired = ErrorReason("payment_required", .failedPrecondition)
    /// The product is not for sale now (`Product.checkForSale`).
    public static let productInactive = ErrorReason("product_inactive", .failedPrecondition)
    /// A card or nfc payment is completed by its provider.
    public static let providerPayment = ErrorReason("provider_payment", .failedPrecondition)
    /// This deployment pushes to no devices.
    public static let pushDisabled = ErrorReason("push_disabled", .failedPrecondition)
    /// More than is left of the payment to refund.
    public static let refundExceedsPayment = ErrorReason("refund_exceeds_payment", .failedPrecondition)
    /// Cancelling would refund what the caller may not refund.
    public static let refundNotAllowed = ErrorReason("refund_not_allowed", .failedPrecondition)
    /// The store is closed, or not taking orders.
    public static let storeClosed = ErrorReason("store_closed", .failedPrecondition)
    /// A customer keeps at most so many addresses.
    public static let tooManyAddresses = ErrorReason("too_many_addresses", .failedPrecondition)
    /// The courier carries the most orders they may.
    public static let tooManyClaims = ErrorReason("too_many_claims", .failedPrecondition)
    /// The order holds the most lines it may.
    public static let tooManyItems = ErrorReason("too_many_items", .failedPrecondition)
    /// The courier released the most orders a day allows.
    public static let tooManyReleases = ErrorReason("too_many_releases", .failedPrecondition)
    /// The customer has the most unpaid card orders they may.
    public static let tooManyUnpaid = ErrorReason("too_many_unpaid", .failedPrecondition)
    /// The store has the most webhooks it may.
    public static let tooManyWebhooks = ErrorReason("too_many_webhooks", .failedPrecondition)
    /// The amount is above the most one payment takes.
    public static let totalTooLarge = ErrorReason("total_too_large", .failedPrecondition)
    /// No customer record of the store has this id.
    public static let unknownCustomer = ErrorReason("unknown_customer", .failedPrecondition)

    // MARK: resourceExhausted

    /// Too many requests; `details.retry_after_seconds` says when to try again.
    public static let rateLimited = ErrorReason("rate_limited", .resourceExhausted)
    /// The user has the most event streams open that one user may.
    public static let tooManyStreams = ErrorReason("too_many_streams", .resourceExhausted)
    /// The user has the most long-polls waiting that one user may.
    public static let tooManyLongPolls = ErrorReason("too_many_long_polls", .resourceExhausted)

    // MARK: unavailable

    /// The gateway is shutting down; try another replica.
    public static let draining = ErrorReason("draining", .unavailable)

    /// Every reason declared.
    public static let declared: [ErrorReason] = [
        .payloadTooLarge, .badSignature, .invalidCredentials, .invalidToken, .refreshTokenReused, .staleSignature,
        .unknownProvider, .applicationPending, .applicationRejected, .alreadyClaimed, .alreadyClockedIn,
        .alreadyExists, .alreadyVerified, .emailTaken, .insufficientStock, .otherReference, .requestInProgress,
        .reservationClosed,
        .reservationExpired, .versionConflict, .amountMismatch, .applicationDecided, .cashOutstanding,
        .ordersInProgress, .emailUnverified, .belowMinimum, .outsideDeliveryArea,
        .cardBlocked,
        .cashPayment, .cashRequired, .catalogLine, .currencyMismatch, .heldForOrder, .heldForPayment,
        .idempotencyKeyReused, .illegalTransition, .insufficientBalance, .notCardCustomer, .notCardOrder,
        .notClockedIn, .offDuty, .orderCancelled, .orderClaimed, .orderLocked, .orderPaid, .otherProvider,
        .paymentExpired, .paymentRequired, .productInactive, .providerPayment, .pushDisabled, .refundExceedsPayment,
        .refundNotAllowed, .storeClosed, .tooManyAddresses, .tooManyClaims, .tooManyItems, .tooManyReleases,
        .tooManyUnpaid, .tooManyWebhooks, .totalTooLarge, .unknownCustomer, .rateLimited, .tooManyStreams,
        .tooManyLongPolls, .draining,
    ]
}
