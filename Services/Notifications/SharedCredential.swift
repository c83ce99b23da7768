import Synchronization

/// A credential that pushes share (Apple's provider token, Google's access token): made once
/// however many pushes ask for it together, used until it expires, and made anew sooner when
/// the push service refused it (`forget`).
final class SharedCredential: Sendable {
    /// A credential's value and when to stop using it.
    struct Made: Sendable {
        var value: String
        var expires: ContinuousClock.Instant
    }

    /// A credential handed to one push, to give back with `forget` when it was refused.
    struct Lease: Sendable {
        let value: String
        fileprivate let task: Task<Made, any Error>
    }

    private let make: @Sendable () async throws -> Made
    /// The credential being made or in use, and until when (unknown while it is made).
    private let state = Mutex<(task: Task<Made, any Error>, until: ContinuousClock.Instant?)?>(nil)

    init(make: @escaping @Sendable () async throws -> Made) { self.make = make }

    /// The credential to use now: the one in use, or the one being made (made now when there is
    /// none, or the last has expired). A failure to make it is thrown, and the next push tries again.
    func lease() async throws -> Lease {
        let now = ContinuousClock.now
        let task = state.withLock { current in
            if let current, current.until.map({ now < $0 }) ?? true { return current.task }
            let make = self.make
            let task = Task { try await make() }
            current = (task, nil)
            return task
        }
        do {
            let made = try await task.value
            state.withLock { current in
                if current?.task == task, current?.until == nil { current?.until = made.expires }
            }
            return Lease(value: made.value, task: task)
        } catch {
            forget(task)
            throw error
        }
    }

    /// Makes a new credential next time, unless a push has already asked for one since `lease`'s.
    func forget(_ lease: Lease) { forget(lease.task) }

    private func forget(_ task: Task<Made, any Error>) {
        state.withLock { current in
            if current?.task == task { current = nil }
        }
    }
}
