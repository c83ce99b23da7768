import Domain
import Foundation

extension Receipt {
    /// The receipt of a completed payment, number `number` of its store.
    init(payment: Payment, number: Int64, header: ReceiptHeader?) {
        let id = ReceiptID()
        let issuedAt = payment.completedAt ?? payment.updatedAt
        self.init(
            id: id, number: number, storeID: payment.storeID, paymentID: payment.id, orderID: payment.orderID,
            subtotal: payment.subtotal, tip: payment.tip, total: payment.amount, currency: payment.currency,
            method: payment.method, staffID: payment.staffID, issuedAt: issuedAt,
            text: ReceiptText.render(payment: payment, number: number, header: header, at: issuedAt),
            storeName: header?.storeName, staffName: header?.staffName,
            items: payment.items.map {
                Item(name: $0.name, quantity: $0.quantity, unitPrice: $0.unitPrice, vatRateBP: $0.vatRateBP)
            }, settlement: payment.settlement)
    }
}

extension Receipt {
    /// The receipt of `refund` of `payment`, number `number` of its store, naming the sale's
    /// receipt number (and nobody as having rung it up: the header names who rang up the sale).
    init(refund: Refund, of payment: Payment, number: Int64, saleNumber: Int64?, header: ReceiptHeader?) {
        self.init(
            id: refund.receiptID, number: number, kind: .refund, refundID: refund.id, storeID: payment.storeID,
            paymentID: payment.id, orderID: payment.orderID, subtotal: refund.amount, tip: 0, total: refund.amount,
            currency: payment.currency, method: payment.method, staffID: refund.staffID, issuedAt: refund.createdAt,
            text: ReceiptText.render(
                refund: refund, of: payment, number: number, saleNumber: saleNumber, header: header),
            storeName: header?.storeName, items: Self.returned(refund, of: payment))
    }

    /// The units `refund` put back to stock, as lines of `payment` at its prices.
    static func returned(_ refund: Refund, of payment: Payment) -> [Item] {
        refund.restockLines.map { line in
            let sold = payment.items.first { $0.productID == line.productID }
            return Item(
                name: sold?.name ?? "Item", quantity: line.quantity, unitPrice: sold?.unitPrice ?? 0,
                vatRateBP: sold?.vatRateBP ?? 0)
        }
    }
}
