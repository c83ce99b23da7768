import Foundation
import NIOCore
import Synchronization

/// A thread of its own for one SQLite connection, usable as a task executor.
///
/// A transaction's code runs on this thread (`withTaskExecutorPreference`), and every statement
/// it sends then runs right there, synchronously: no thread switch per statement, which is what
/// a connection on a shared thread pool pays twice for each one.
final class SQLiteThread: TaskExecutor, @unchecked Sendable {
    private struct State {
        var jobs = CircularBuffer<UnownedJob>()
        var stopping = false
    }
    private let state = Mutex(State())
    private let wakeup = DispatchSemaphore(value: 0)
    private let current = Atomic<UInt>(0)
    private let finished = DispatchSemaphore(value: 0)

    init(name: String) {
        let thread = Thread { [self] in
            // Set from the thread itself, where Linux applies it: `top -H` and profilers show it.
            Thread.current.name = name
            run()
        }
        thread.start()
    }

    /// Whether the caller runs on this thread.
    var isCurrent: Bool { current.load(ordering: .acquiring) == Self.threadID() }

    private static func threadID() -> UInt {
        #if canImport(Darwin)
            UInt(bitPattern: pthread_self())
        #else
            UInt(pthread_self())
        #endif
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        state.withLock { $0.jobs.append(job) }
        wakeup.signal()
    }

    private func run() {
        current.store(Self.threadID(), ordering: .releasing)
        while true {
            wakeup.wait()
            let (job, stop) = state.withLock { state in (state.jobs.popFirst(), state.stopping && state.jobs.isEmpty) }
            if let job { job.runSynchronously(on: asUnownedTaskExecutor()) }
            if stop && job == nil { break }
        }
        finished.signal()
    }

    /// Runs what is queued, then ends the thread; waits for it.
    func stop() async {
        state.withLock { $0.stopping = true }
        wakeup.signal()
        await withCheckedContinuation { continuation in
            Thread {
                self.finished.wait()
                continuation.resume()
            }.start()
        }
    }
}
