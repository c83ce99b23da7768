import ArgumentParser

/// The operator's command line: dead letters, the event pipeline, an admin's password, Wire keys and
/// the containers' health probe. The
/// benchmarks and the load generator are `orderly-bench`'s.
struct Orderly: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "orderly",
        abstract: "Orderly's command-line tools.",
        subcommands: [DeadLetterCommands.self, PipelineCommand.self, AdminCommands.self, WireKeys.self, Probe.self])
}
