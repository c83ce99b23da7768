import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The CPU time this process has used, and on Linux the machine's CPU time by kind (from
/// `/proc/stat`), at one moment; two of them tell what a measurement cost and what the machine
/// was doing meanwhile.
///
/// On a virtual machine the hypervisor may run other guests on this one's CPUs: the time it
/// takes shows as *steal*, and a throughput figure measured then is lower by about as much or
/// more. The CPU time per operation does not count stolen time, so steal moves it less (the
/// host's load still shows in it).
struct CPUTimes {
    /// Seconds of CPU this process used, all threads.
    var process: Double
    /// Clock ticks the machine spent in total, idle (and waiting for I/O), and stolen; nil
    /// where `/proc/stat` is missing.
    var machine: (total: UInt64, idle: UInt64, steal: UInt64)?

    static func now() -> CPUTimes {
        var clock = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &clock)
        return CPUTimes(process: Double(clock.tv_sec) + Double(clock.tv_nsec) / 1e9, machine: machineTicks())
    }

    /// The first line of `/proc/stat`: `cpu  user nice system idle iowait irq softirq steal …`.
    private static func machineTicks() -> (total: UInt64, idle: UInt64, steal: UInt64)? {
        guard let text = try? String(contentsOfFile: "/proc/stat", encoding: .utf8),
            let line = text.split(separator: "\n").first, line.hasPrefix("cpu ")
        else { return nil }
        let ticks = line.split(separator: " ").dropFirst().compactMap { UInt64($0) }
        guard ticks.count >= 8 else { return nil }
        // guest and guest_nice (fields 9 and 10) are already counted in user and nice.
        return (ticks.prefix(8).reduce(0, +), ticks[3] + ticks[4], ticks[7])
    }

    /// What was spent from `self` until `later`, for `operations` operations, as a line: this
    /// process's CPU time per operation (`uncounted` names what else worked on them), and the
    /// machine's stolen and idle shares.
    func report(until later: CPUTimes, operations: Int, unit: String, uncounted: String? = nil) -> String {
        let perOperation = (later.process - process) / Double(max(1, operations)) * 1e6
        var line = String(format: "%.0f µs of CPU per ", perOperation) + unit + " in this process"
        if let uncounted { line += " (\(uncounted) not counted)" }
        if let before = machine, let after = later.machine, after.total > before.total {
            let total = Double(after.total - before.total)
            line += String(
                format: "; machine: %.0f%% stolen by the hypervisor, %.0f%% idle",
                Double(after.steal - before.steal) / total * 100, Double(after.idle - before.idle) / total * 100)
        }
        return line
    }
}
