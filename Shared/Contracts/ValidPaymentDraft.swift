public import Domain
import Foundation
import WireContract

/// A payment request as `PaymentDraft.validated()` found it.
public struct ValidPaymentDraft: Sendable {
    public enum Line: Sendable {
        case product(ProductID, quantity: Int64)
        case free(name: String, unitPrice: Int64, quantity: Int64, vatRateBP: Int)
    }

    public var lines: [Line]
    public var tip: Int64
    public var method: PaymentMethod
    /// The card tapped, normalized (`Card.normalizedUID`), for an nfc payment.
    public var cardUID: String?
    public var pendingSeconds: Int
}
