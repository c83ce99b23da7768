/// Asks `probe` again, every 20 milliseconds, until it gives a value or `timeout` has passed:
/// how a test waits for something that happens elsewhere (another task, process or server)
/// instead of sleeping for a guessed time. Returns the value, or nil when none came in time.
/// The default bound is generous: `make test` runs some 420 tests at once on two cores, where
/// CPU-bound tests can hold both of the concurrency pool's threads for half a minute (CI saw
/// a 20 ms housekeeping interval miss its third turn in 30 s) and what takes milliseconds
/// alone waits that long for a thread; a condition that holds is seen within 20 ms whatever
/// the bound.
public func eventually<Value>(
    within timeout: Duration = .seconds(90), _ probe: () async throws -> Value?
) async rethrows -> Value? {
    let deadline = ContinuousClock.now + timeout
    while true {
        if let value = try await probe() { return value }
        guard ContinuousClock.now < deadline else { return nil }
        try? await Task.sleep(for: .milliseconds(20))
    }
}

/// Asks `condition` again, every 20 milliseconds, until it holds or `timeout` has passed;
/// returns whether it came to hold.
public func waitUntil(within timeout: Duration = .seconds(90), _ condition: () async throws -> Bool) async rethrows
    -> Bool
{
    try await eventually(within: timeout) { try await condition() ? true : nil } ?? false
}
