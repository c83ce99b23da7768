import Domain
import Logging
import Redis
public import ServiceLifecycle
public import Storage
public import Wire
import WireContract

/// A service without a process around it: the Wire methods it answers, the followers of the
/// event streams it reacts to (`ServiceEnvironment.follow(_:)`) and its other long-running
/// parts (sweeps, senders). Its process adds the outbox relay, the Wire and admin servers.
public struct ServiceParts: Sendable {
    public var router: WireRouter
    public var consumers: [any Service]
    /// Clean-ups of its own tables, beside those every service runs (`Housekeeping`).
    public var housekeeping: [Housekeeping.Job]

    public init(router: WireRouter, consumers: [any Service] = [], housekeeping: [Housekeeping.Job] = []) {
        self.router = router
        self.consumers = consumers
        self.housekeeping = housekeeping
    }
}
