import Contracts
import Domain
import Foundation
import Logging

/// What became of one attempt to push to one device.
enum PushOutcome: Sendable, Equatable {
    case delivered
    /// The device's token is no good any more (unregistered, or not a token of its app or
    /// environment), as the provider said at `since`: the device is removed unless it was
    /// registered again after that.
    case tokenInvalid(since: Date, reason: String)
    /// Refused for a reason that trying again would not change, and that is the sender's, not
    /// the device's (a provider key revoked, a payload too large): the device is kept, for the
    /// operator to fix what the log names.
    case refused(String)
    /// Not now (busy, failing, or no answer): tried again after a backoff.
    case retry(String)
}
