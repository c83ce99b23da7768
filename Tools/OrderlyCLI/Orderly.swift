import ArgumentParser

/// The project's command line: dead letters, Wire keys, benchmarks, the load generator and the
/// containers' health probe.
struct Orderly: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "orderly",
        abstract: "Orderly's command-line tools.",
        subcommands: [
            DeadLetterCommands.self, WireKeys.self, BenchWire.self, BenchStorage.self, BenchOrderLists.self,
            LoadGen.self, Probe.self,
        ])
}
