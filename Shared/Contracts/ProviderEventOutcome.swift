public import Domain
import Foundation
import WireContract

/// What became of a provider's report: `applied` (the payment moved), `duplicate` (this event
/// id was received before) or `ignored` (it arrived after the payment had moved past it, or
/// had ended otherwise), with the payment's status after it.
public struct ProviderEventOutcome: Codable, Sendable, Hashable {
    public var outcome: Outcome
    public var status: PaymentStatus

    public enum Outcome: String, Codable, Sendable, Hashable {
        case applied, duplicate, ignored
    }

    public init(outcome: Outcome, status: PaymentStatus) {
        self.outcome = outcome
        self.status = status
    }
}
