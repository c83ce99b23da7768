import ArgumentParser

/// The operator's command line: dead letters, Wire keys and the containers' health probe. The
/// benchmarks and the load generator are `orderly-bench`'s.
struct Orderly: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "orderly",
        abstract: "Orderly's command-line tools.",
        subcommands: [DeadLetterCommands.self, WireKeys.self, Probe.self])
}
