import Foundation
import Metrics
import Synchronization

/// The process's CPU time, memory, file descriptors and start time, read from Linux's `/proc`
/// when `/metrics` is scraped (Prometheus's usual `process_*` names). Where `/proc` cannot be
/// read, the figures stay as they were.
final class ProcessMetrics: Sendable {
    static let shared = ProcessMetrics()

    private let cpu = FloatingPointCounter(label: "process_cpu_seconds_total")
    private let resident = Gauge(label: "process_resident_memory_bytes")
    private let virtual = Gauge(label: "process_virtual_memory_bytes")
    private let openFiles = Gauge(label: "process_open_fds")
    private let maximumFiles = Gauge(label: "process_max_fds")
    private let started = Gauge(label: "process_start_time_seconds")
    /// The CPU seconds counted so far, so each scrape adds what was spent since.
    private let counted = Mutex<Double>(0)

    func update() {
        if let stat = Self.stat() {
            let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
            let seconds = Double(stat.userTicks + stat.systemTicks) / ticks
            let added = counted.withLock { counted in
                defer { counted = max(counted, seconds) }
                return seconds - counted
            }
            if added > 0 { cpu.increment(by: added) }
            virtual.record(stat.virtualBytes)
            resident.record(stat.residentPages * Int64(sysconf(Int32(_SC_PAGESIZE))))
            if let boot = Self.bootTime() { started.record(Double(boot) + Double(stat.startTicks) / ticks) }
        }
        if let files = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") {
            openFiles.record(files.count)
        }
        var limit = rlimit()
        if getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 {
            maximumFiles.record(Int64(clamping: limit.rlim_cur))
        }
    }

    struct Stat {
        var userTicks: Int64
        var systemTicks: Int64
        var startTicks: Int64
        var virtualBytes: Int64
        var residentPages: Int64
    }

    /// `/proc/self/stat`'s fields 14, 15, 22, 23 and 24, counted after the command's closing
    /// parenthesis (the command may hold spaces).
    static func stat(_ text: String? = try? String(contentsOfFile: "/proc/self/stat", encoding: .utf8)) -> Stat? {
        guard let text, let close = text.lastIndex(of: ")") else { return nil }
        // After ") " come field 3 (state) onwards.
        let fields = text[text.index(after: close)...].split(separator: " ")
        func field(_ number: Int) -> Int64? { fields.count > number - 3 ? Int64(fields[number - 3]) : nil }
        guard let user = field(14), let system = field(15), let start = field(22), let virtual = field(23),
            let resident = field(24)
        else { return nil }
        return Stat(
            userTicks: user, systemTicks: system, startTicks: start, virtualBytes: virtual, residentPages: resident)
    }

    /// When the machine booted, in seconds since the epoch (`btime` in `/proc/stat`).
    static func bootTime() -> Int64? {
        guard let text = try? String(contentsOfFile: "/proc/stat", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix("btime ") {
            return Int64(line.dropFirst(6).trimmingCharacters(in: .whitespaces))
        }
        return nil
    }
}
