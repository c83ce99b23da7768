import ArgumentParser
import Domain
import Foundation
import Logging
import NIOCore
import NIOPosix
import Synchronization
import Wire
import WireContract

/// `orderly bench-wire`: Wire round trips per second at several levels of concurrency, against
/// a raw length-prefixed NIO echo (no JSON) measured in the same run as the ceiling.
///
/// The servers run in a child process (`orderly bench-wire serve`), as services do, so client
/// and server each have their own event loops.
struct BenchWire: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench-wire", abstract: "Measure Wire round trips per second against a raw NIO echo.",
        subcommands: [Serve.self])

    @Option(help: "Seconds of each measured round.")
    var seconds: Double = 2

    @Option(help: "Measured rounds per case; the median is reported, with the range.")
    var rounds: Int = 3

    @Option(help: "Seconds of warm-up before each case.")
    var warmup: Double = 0.5

    @Option(
        help: "Measure only this case, for profiling: wire1, wire16, wire256, empty16, pool, echo1, echo16, echo256.")
    var only: String?

    func validate() throws {
        let cases = ["empty16", "wire1", "wire16", "wire256", "pool", "echo1", "echo16", "echo256"]
        if let only, !cases.contains(only) {
            throw ValidationError("--only must be one of \(cases.joined(separator: ", "))")
        }
        guard seconds > 0, seconds <= 600 else { throw ValidationError("--seconds must be between 0 and 600") }
        guard warmup >= 0, warmup <= 60 else { throw ValidationError("--warmup must be between 0 and 60") }
        guard (1...20).contains(rounds) else { throw ValidationError("--rounds must be between 1 and 20") }
    }

    func run() async throws {
        var logger = Logger(label: "bench-wire")
        logger.logLevel = .warning
        let secretText = UUID().uuidString + UUID().uuidString
        let secret = WireSecret(secretText)!
        let servers = try ServerProcess.start(secret: secretText)
        defer { servers.stop() }

        say(
            "cores: \(System.coreCount); servers in a child process; each case: \(warmup)s warm-up, then "
                + "\(rounds) rounds of \(seconds)s (median, with the range); "
                + "body: {\"text\":\"\(BenchEcho.sample.text)\",\"n\":\(BenchEcho.sample.n)}")
        say("")
        say("case                                    round trips/s   (range)          machine meanwhile")
        say("---------------------------------------------------------------------------------------------------")

        let connection = try await WireConnection.connect(
            host: "127.0.0.1", port: servers.wirePort, server: "bench", callerService: "bench", secret: secret)
        var wire: [Int: Measurement] = [:]
        func selected(_ name: String) -> Bool { only == nil || only == name }
        for inFlight in [1, 16, 256] where selected("wire\(inFlight)") {
            wire[inFlight] = try await measure(callers: inFlight) {
                let answer = try await connection.call(BenchAPI.echo, BenchEcho.sample)
                guard answer.n == BenchEcho.sample.n + 1 else { throw BenchFailure.wrongAnswer }
            }
            report("wire, 1 connection, \(inFlight) in flight", wire[inFlight]!)
        }
        if selected("empty16") {
            // The same call with `{}` bodies: how much of the cost is JSON and how much the rest.
            let empty = try await measure(callers: 16) { _ = try await connection.call(BenchAPI.empty, WireEmpty()) }
            report("wire, empty bodies, 16 in flight", empty)
        }
        await connection.close()
        let pool = WireClient(
            configuration: WireClientConfiguration(
                service: "bench", endpoints: [WireEndpoint(host: "127.0.0.1", port: servers.wirePort)],
                callerService: "bench", secret: secret, connectionsPerEndpoint: 4),
            logger: logger)
        if selected("pool") {
            let pooled = try await measure(callers: 64) {
                let answer = try await pool.call(BenchAPI.echo, BenchEcho.sample)
                guard answer.n == BenchEcho.sample.n + 1 else { throw BenchFailure.wrongAnswer }
            }
            report("wire, pool of 4, 64 callers", pooled)
        }
        await pool.close()

        let echoConnection = try await RawEcho.connect(port: servers.echoPort)
        let payload = ByteBuffer(string: "{\"text\":\"\(BenchEcho.sample.text)\",\"n\":\(BenchEcho.sample.n)}")
        var raw: [Int: Measurement] = [:]
        for inFlight in [1, 16, 256] where selected("echo\(inFlight)") {
            raw[inFlight] = try await measure(callers: inFlight) {
                let answer = try await echoConnection.roundTrip(payload)
                guard answer.readableBytes == payload.readableBytes else { throw BenchFailure.wrongAnswer }
            }
            report("raw echo, 1 connection, \(inFlight) in flight", raw[inFlight]!)
        }
        try await echoConnection.close()

        guard only == nil else { return }
        say("")
        for inFlight in [1, 16, 256] {
            say(
                "ratio wire/echo at \(inFlight) in flight: "
                    + String(format: "%.2f", wire[inFlight]!.median / raw[inFlight]!.median))
        }
        let wire16 = wire[16]!.median
        let echo16 = raw[16]!.median
        say("wire16=\(Int(wire16)) echo16=\(Int(echo16)) ratio=\(String(format: "%.3f", wire16 / echo16))")
    }

    private func report(_ name: String, _ rate: Measurement) {
        say(
            name.padding(toLength: 40, withPad: " ", startingAt: 0) + String(format: "%12.0f", rate.median)
                + String(format: "   (%.0f–%.0f)", rate.low, rate.high).padding(
                    toLength: 20, withPad: " ", startingAt: 0) + (rate.machine ?? ""))
    }

    /// Round trips per second over `rounds` windows of `seconds`: the median and the range.
    struct Measurement {
        var median: Double
        var low: Double
        var high: Double
        /// The machine's stolen and idle shares over the rounds.
        var machine: String?

        init(_ rates: [Double], machine: String?) {
            let sorted = rates.sorted()
            median = sorted[sorted.count / 2]
            low = sorted.first!
            high = sorted.last!
            self.machine = machine
        }
    }

    /// Runs `callers` loops of `operation` through the warm-up, then counts completions in each
    /// measured round.
    private func measure(
        callers: Int, _ operation: @escaping @Sendable () async throws -> Void
    ) async throws -> Measurement {
        let flags = MeasurementFlags()
        return try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<callers {
                group.addTask {
                    while !flags.stop.load(ordering: .relaxed) {
                        try await operation()
                        flags.completed.add(1, ordering: .relaxed)
                    }
                }
            }
            try await Task.sleep(for: .seconds(warmup))
            var rates: [Double] = []
            let cpu = CPUTimes.now()
            for _ in 0..<rounds {
                let before = flags.completed.load(ordering: .relaxed)
                let started = ContinuousClock.now
                try await Task.sleep(for: .seconds(seconds))
                let count = flags.completed.load(ordering: .relaxed) - before
                let elapsed = ContinuousClock.now - started
                let elapsedSeconds = elapsed.timeInterval
                rates.append(Double(count) / elapsedSeconds)
            }
            let machine = cpu.machineShares(until: CPUTimes.now())
            flags.stop.store(true, ordering: .relaxed)
            try await group.waitForAll()
            return Measurement(rates, machine: machine)
        }
    }

    /// `orderly bench-wire serve`: the benchmark's servers, run by `bench-wire` as its child.
    /// Prints `ports <wire> <echo>`, then serves until its standard input closes.
    struct Serve: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "The servers bench-wire measures (started by bench-wire itself).", shouldDisplay: false)

        func run() async throws {
            guard let secretText = ProcessInfo.processInfo.environment["ORDERLY_BENCH_SECRET"],
                let secret = WireSecret(secretText)
            else { throw ValidationError("ORDERLY_BENCH_SECRET must be set") }
            var logger = Logger(label: "bench-wire.serve")
            logger.logLevel = .warning
            var router = WireRouter()
            router.register(BenchAPI.echo) { request, _ in BenchEcho(text: request.text, n: request.n + 1) }
            router.register(BenchAPI.empty) { _, _ in WireEmpty() }
            let server = WireServer(
                configuration: WireServerConfiguration(port: 0, serviceName: "bench", secret: secret), router: router,
                logger: logger)
            let serverTask = Task { try await server.run() }
            let wirePort = try await server.localAddress().port!
            let echo = try await RawEcho.start()
            FileHandle.standardOutput.write(Data("ports \(wirePort) \(echo.port)\n".utf8))
            // Serve until the parent closes our standard input (or dies). The read blocks, so it
            // runs on NIO's thread pool for blocking work, never on an event loop.
            _ = try? await NIOThreadPool.singleton.runIfActive { FileHandle.standardInput.readDataToEndOfFile() }
            try await echo.channel.close()
            server.shutdownGracefully()
            try await serverTask.value
        }
    }
}

/// The child process running the benchmark's servers.
struct ServerProcess {
    let process: Process
    let input: Pipe
    let wirePort: Int
    let echoPort: Int

    static func start(secret: String) throws -> ServerProcess {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        process.arguments = ["bench-wire", "serve"]
        process.environment = ProcessInfo.processInfo.environment.merging(["ORDERLY_BENCH_SECRET": secret]) { _, new in
            new
        }
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        var line = Data()
        while let byte = try output.fileHandleForReading.read(upToCount: 1), !byte.isEmpty, byte != Data("\n".utf8) {
            line.append(byte)
        }
        let words = String(decoding: line, as: UTF8.self).split(separator: " ")
        guard words.count == 3, words[0] == "ports", let wire = Int(words[1]), let echo = Int(words[2]) else {
            process.terminate()
            throw BenchFailure.serverDidNotStart(String(decoding: line, as: UTF8.self))
        }
        return ServerProcess(process: process, input: input, wirePort: wire, echoPort: echo)
    }

    func stop() {
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }
}

/// Shared between the measuring loops and the clock.
final class MeasurementFlags: Sendable {
    let completed = Atomic<Int>(0)
    let stop = Atomic<Bool>(false)
}

enum BenchFailure: Error {
    case wrongAnswer
    case serverDidNotStart(String)
}

struct BenchEcho: Codable, Sendable {
    var text: String
    var n: Int
    static let sample = BenchEcho(text: "hello, orderly", n: 41)
}

enum BenchAPI {
    static let echo = WireMethod<BenchEcho, BenchEcho>("bench.echo", safeToRetry: true)
    static let empty = WireMethod<WireEmpty, WireEmpty>("bench.empty", safeToRetry: true)
}
