import Contracts
import Domain
import Events
import Foundation
import Logging
import Runtime
import Storage

/// The catalog's steps of the payment saga: the stock held for a payment follows the payment,
/// as the payments service's events tell it.
///
/// The payments service holds the stock of a payment's tracked items before it stores the
/// payment (a reservation naming the payment, expiring a while after the payment would). Here
/// each event's payment is the state to reach: once a provider is working on it (`confirmed`,
/// `processing`) its reservation is kept without a time limit, and held again if it lapsed
/// meanwhile; `completed` sells it (`sale` entries), even if it lapsed, because the goods are
/// gone with the customer; `failed`, `cancelled` and `expired` give it back; a refund's
/// restocked units come back as `return` entries. Each event is
/// applied once, in one transaction with its inbox record, and only when its payment version is
/// later than the last one followed, so a redelivered or late event (a `confirmed` read after
/// the `cancelled` that followed it) changes nothing.
struct PaymentHoldsFollower: EventFollower {
    static let producer = PaymentsAPI.service

    /// The name its applied events are recorded under (the inbox).
    static let consumer = "catalog.payment-holds"
    /// The payment events that change what a payment holds.
    static let types =
        [PaymentStatus.confirmed, .processing, .completed, .failed, .cancelled, .expired].map(
            PaymentsAPI.Events.reached) + [PaymentsAPI.Events.refunded]

    /// How reservations end and are held again, over the catalog's database.
    let book: StockBook
    let logger: Logger

    /// Brings the event's payment's reservation in line with it, once per event. A payment
    /// without a reservation (nothing it sells tracks stock) is passed over without a write.
    func apply(_ event: DomainEvent) async throws {
        if event.type == PaymentsAPI.Events.refunded { return try await restock(event) }
        let payment = try event.payload.decode(as: PaymentStock.self)
        guard let id = payment.reservationID else { return }
        try await book.database.applyOnce(event, consumer: Self.consumer) { transaction in
            try await follow(payment, reservation: id, in: transaction)
        }
    }

    func follow(_ payment: PaymentStock, reservation id: ReservationID, in transaction: Transaction) async throws {
        // A later version of the payment was followed already: this event is late.
        try await transaction.lock(.holds(ofPayment: payment.id))
        guard
            payment.version > (try await book.reservations.holdsVersion(of: .payment(payment.id), in: transaction.sql))
        else {
            return
        }
        try await book.reservations.setHoldsVersion(payment.version, of: .payment(payment.id), in: transaction)
        try await transaction.lock(.reservation(id))
        guard var reservation = try await book.reservations.find(id, in: transaction.sql),
            reservation.paymentID == payment.id
        else {
            logger.error(
                "a payment names a reservation the catalog does not hold for it",
                metadata: ["payment.id": "\(payment.id)", "reservation.id": "\(id)"])
            return
        }
        switch payment.status {
        case .confirmed, .processing:
            if reservation.status != .held {
                guard try await book.holdAgain(&reservation, in: transaction) else {
                    logger.error(
                        "the stock of a payment a provider is working on lapsed and is no longer available",
                        metadata: ["payment.id": "\(payment.id)", "reservation.id": "\(id)"])
                    return
                }
            }
            try await keepUntilTheEnd(&reservation, in: transaction)
        case .completed:
            guard reservation.status != .committed else { return }
            if reservation.status != .held {
                logger.warning(
                    "a completed payment's stock had lapsed; sold all the same",
                    metadata: ["payment.id": "\(payment.id)", "reservation.id": "\(id)"])
                _ = try await book.holdAgain(&reservation, regardless: true, in: transaction)
            }
            try await keepUntilTheEnd(&reservation, in: transaction)
            try await book.end(&reservation, as: .committed, by: nil, in: transaction)
        case .failed, .cancelled, .expired:
            guard reservation.status == .held else { return }
            try await book.end(&reservation, as: .released, by: nil, in: transaction)
        case .pending, .partiallyRefunded, .refunded:
            return
        }
    }

    /// Puts a refund's restocked units back on the shelf, once: a `return` ledger entry per
    /// product, referencing the refund.
    func restock(_ event: DomainEvent) async throws {
        let refund = try event.payload.decode(as: PaymentRefunded.self).refund
        guard !refund.restockLines.isEmpty else { return }
        try await book.database.applyOnce(event, consumer: Self.consumer) { transaction in
            let locked = try await book.products.lockedProducts(of: refund.restockLines, in: transaction)
            for line in refund.restockLines {
                guard var product = locked[line.productID], product.trackStock else {
                    logger.warning(
                        "a refund restocks a product that is gone or no longer tracks stock; left alone",
                        metadata: ["refund.id": "\(refund.id)", "product.id": "\(line.productID)"])
                    continue
                }
                let before = product
                product.quantity += line.quantity
                try await book.move(
                    &product, from: before, reason: .return, reference: "refund \(refund.id)", by: refund.staffID,
                    in: transaction)
            }
        }
    }

    /// Removes the reservation's expiry: it ends with the payment.
    private func keepUntilTheEnd(_ reservation: inout Reservation, in transaction: Transaction) async throws {
        guard reservation.expiresAt != nil else { return }
        reservation.expiresAt = nil
        reservation.updatedAt = Date.currentMillisecond
        try await book.reservations.update(reservation, in: transaction)
    }
}

/// What the stock held for a payment follows, read from a payment event's payload; the
/// payment's other fields are not decoded.
struct PaymentStock: Decodable, Sendable {
    var id: PaymentID
    var version: Int64
    var status: PaymentStatus
    var reservationID: ReservationID?

    enum CodingKeys: String, CodingKey {
        case id, status, version
        case reservationID = "reservation_id"
    }
}
