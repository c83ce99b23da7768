internal import NIOCore
internal import Synchronization

/// A first-come, first-served lock for async code: SQLite has one writer, so a process queues
/// its write transactions here instead of letting them collide on the file lock.
final class AsyncGate: Sendable {
    private struct State {
        var held = false
        var waiters = CircularBuffer<CheckedContinuation<Void, Never>>()
    }
    private let state = Mutex(State())

    func withLock<T>(_ body: () async throws -> T) async throws -> T {
        await acquire()
        defer { release() }
        return try await body()
    }

    private func acquire() async {
        let free = state.withLock { state in
            guard !state.held else { return false }
            state.held = true
            return true
        }
        if free { return }
        await withCheckedContinuation { continuation in
            let resumeNow = state.withLock { state in
                guard state.held else {
                    state.held = true
                    return true
                }
                state.waiters.append(continuation)
                return false
            }
            if resumeNow { continuation.resume() }
        }
    }

    /// Hands the lock straight to the next waiter, so nobody can overtake the queue.
    private func release() {
        let next = state.withLock { state in
            guard let next = state.waiters.popFirst() else {
                state.held = false
                return nil as CheckedContinuation<Void, Never>?
            }
            return next
        }
        next?.resume()
    }
}
