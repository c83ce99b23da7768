import Contracts
import Domain
import Foundation
import Logging
import NIOCore
import Runtime
import Storage
import Wire
import WireCodec

/// The payments service's Wire method of the providers' signed reports on card payments.
struct ProviderReportsHandlers: Sendable {
    let database: Database
    let settings: PaymentsSettings
    let logger: Logger

    var book: PaymentBook { PaymentBook(database: database) }
    var payments: PaymentsRepository { book.payments }
    var reports: ProviderReportsRepository { ProviderReportsRepository(database: database) }

    func register(in router: inout WireRouter) {
        router.register(PaymentsAPI.providerEvent) { signed, _ in
            try await receive(signed)
        }
    }

    /// The configured provider whose secret signed `signed`: 401 `bad_signature` when the header
    /// is missing or malformed or no secret matches, `stale_signature` when one matches at a time
    /// too far from `now`.
    static func signer(of signed: SignedProviderEvent, among secrets: [String: String], now: Date) throws -> String {
        let signature = try OrderlySignature.parse(signed.signature)
        var refusal = OrderlyError(
            .badSignature, "the Orderly-Signature header does not match the body")
        for (provider, secret) in secrets {
            do {
                try OrderlySignature.verify(
                    signature, body: signed.body, secret: secret, now: now,
                    tolerance: PaymentsAPI.signatureToleranceSeconds)
                return provider
            } catch  where error.reason == .staleSignature {
                refusal = error
            } catch {
                continue
            }
        }
        throw refusal
    }

    /// A provider's signed report on a card payment: checked against the provider's secret
    /// (401 when the signature is missing, wrong or stale, or the provider unknown), recorded
    /// by its event id (a repeat is `duplicate`), and applied when it moves the payment forward
    /// along `pending → confirmed → processing → completed | failed`; one that arrives after
    /// the payment moved past it, or ended otherwise, is `ignored` and logged. The first report
    /// applied binds the payment to its provider and reference: another provider's (422
    /// `other_provider`) or one without that reference (409 `other_reference`) changes nothing
    /// after.
    /// A `completed` report carries the amount taken, which must be the payment's (422
    /// `amount_mismatch`, logged: the payment stays as it was for someone to look into), and may
    /// carry what it was settled in, kept on the payment and printed on its receipt.
    func receive(_ signed: SignedProviderEvent) async throws -> ProviderEventOutcome {
        // The body is read once a configured provider's secret is known to have signed it, so a
        // stranger learns nothing of what it should hold; it must then name that provider.
        let provider = try Self.signer(of: signed, among: settings.providerSecrets, now: Date())
        let event: ProviderEvent
        do {
            event = try WireJSON.decode(ProviderEvent.self, from: ByteBuffer(string: signed.body))
        } catch let error as DecodingError {
            throw OrderlyError(decoding: error)
        }
        guard event.provider == provider else {
            throw OrderlyError(
                .unknownProvider, "the report names another provider than the one whose secret signed it")
        }
        let valid = try event.validated()
        let (paymentID, type, reference) = (valid.paymentID, valid.type, valid.providerRef)
        let (payments, reports, logger, book) = (self.payments, self.reports, self.logger, self.book)
        return try await database.transaction { transaction in
            try await transaction.lock(.payment(paymentID))
            guard var payment = try await payments.payment(paymentID, in: transaction.sql) else {
                throw OrderlyError(.notFound, "no payment \(paymentID)")
            }
            guard payment.method.isProviderDriven else {
                throw OrderlyError(
                    .cashPayment, "a cash payment is confirmed by the cashier")
            }
            if let handler = payment.provider, handler != provider {
                throw OrderlyError(
                    .otherProvider, "the payment is handled by another provider")
            }
            if let bound = payment.providerRef, reference != bound {
                throw OrderlyError(
                    .otherReference, "the report's provider_ref is not the payment's")
            }
            if valid.amount.map({ $0 != payment.amount }) == true
                || valid.currency.map({ $0 != payment.currency }) == true
            {
                logger.warning(
                    "a provider reported another amount than the payment's; refused",
                    metadata: [
                        "payment.id": "\(paymentID)", "provider.name": "\(provider)",
                        "provider.event_type": "\(type.rawValue)",
                    ])
                throw OrderlyError(
                    .amountMismatch, "the report's amount and currency are not the payment's",
                    details: ["amount": .int(payment.amount), "currency": .string(payment.currency.description)])
            }
            guard
                try await reports.recordProviderEvent(
                    provider: provider, id: valid.id, payment: paymentID, in: transaction)
            else { return ProviderEventOutcome(outcome: .duplicate, status: payment.status) }
            let now = Date.currentMillisecond
            let late =
                payment.status.isTerminal || type.progress <= payment.status.progress
                || (try? PaymentBook.checkNotDue(payment, at: now)) == nil
            guard !late else {
                logger.warning(
                    "a provider's report arrived after the payment moved past it; ignored",
                    metadata: [
                        "payment.id": "\(paymentID)", "payment.status": "\(payment.status.rawValue)",
                        "provider.event_type": "\(type.rawValue)", "provider.name": "\(provider)",
                    ])
                return ProviderEventOutcome(outcome: .ignored, status: payment.status)
            }
            try payment.move(to: type, at: now)
            payment.provider = provider
            if let reference { payment.providerRef = reference }
            if let settlement = valid.settlement { payment.settlement = settlement }
            try await book.save(&payment, in: transaction)
            return ProviderEventOutcome(outcome: .applied, status: payment.status)
        }
    }
}
