/// A failure that says whether it is of the moment (a database, Redis or another service
/// unavailable, a lock busy) rather than of the work itself: the same work may succeed if tried
/// again later, so it is retried without counting against the work.
public protocol TransientFailure: Error {
    var isTransient: Bool { get }
}

/// Whether `error` is of the moment (see `TransientFailure`); an error that does not say is
/// taken as a failure of the work, as is cancellation.
public func isTransient(_ error: any Error) -> Bool {
    (error as? any TransientFailure)?.isTransient ?? false
}

extension OrderlyError: TransientFailure {
    /// A peer that is unavailable, out of time or out of capacity may answer later.
    public var isTransient: Bool { [.unavailable, .deadlineExceeded, .resourceExhausted].contains(code) }
}
