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
        if let shares = machineShares(until: later) { line += "; machine: " + shares }
        return line
    }

    /// The machine's stolen and idle shares from `self` until `later`: `3% stolen by the
    /// hypervisor, 40% idle`; nil where `/proc/stat` is missing.
    func machineShares(until later: CPUTimes) -> String? {
        guard let before = machine, let after = later.machine, after.total > before.total else { return nil }
        let total = Double(after.total - before.total)
        return String(
            format: "%.0f%% stolen by the hypervisor, %.0f%% idle", Double(after.steal - before.steal) / total * 100,
            Double(after.idle - before.idle) / total * 100)
    }
}

/// The CPU time other processes have used, by name, from `/proc/<pid>/stat` (user and system
/// time): what the suite's processes spend on a phase of load.
struct ProcessCPUTimes {
    /// Seconds of CPU by process name; a process that cannot be read is left out.
    var seconds: [String: Double]
    var machine: CPUTimes

    /// `name:pid` pairs separated by spaces, as `deploy/local/run.sh` passes them in
    /// `ORDERLY_PROCESSES`.
    static func parse(_ text: String) -> [(name: String, pid: Int32)] {
        text.split(separator: " ").compactMap { pair in
            let parts = pair.split(separator: ":")
            guard parts.count == 2, let pid = Int32(parts[1]) else { return nil }
            return (String(parts[0]), pid)
        }
    }

    static func now(_ processes: [(name: String, pid: Int32)]) -> ProcessCPUTimes {
        let ticksPerSecond = Double(sysconf(Int32(_SC_CLK_TCK)))
        var seconds: [String: Double] = [:]
        for (name, pid) in processes {
            // After the command name in parentheses, field 3 on: utime and stime are 14 and 15.
            guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                let close = text.lastIndex(of: ")")
            else { continue }
            let fields = text[text.index(after: close)...].split(separator: " ")
            guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { continue }
            seconds[name, default: 0] += (user + system) / ticksPerSecond
        }
        return ProcessCPUTimes(seconds: seconds, machine: CPUTimes.now())
    }

    /// Each process's CPU per operation from `self` until `later`, in milliseconds, largest
    /// first, and their total.
    func perOperation(until later: ProcessCPUTimes, operations: Int) -> (each: [(String, Double)], total: Double) {
        let each = later.seconds.compactMap { name, after -> (String, Double)? in
            guard let before = seconds[name] else { return nil }
            return (name, (after - before) / Double(max(1, operations)) * 1000)
        }.sorted { $0.1 > $1.1 }
        return (each, each.reduce(0) { $0 + $1.1 })
    }
}
