import ArgumentParser
import Runtime

/// The operator's command line: dead letters, the event pipeline, Wire keys and the containers'
/// health probe, over Redis and HTTP; it links no service's code. An admin's password is reset
/// with the gateway's own executable (`orderly-gateway admin reset-password`), the benchmarks and
/// the load generator are `orderly-bench`'s.
struct Orderly: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "orderly",
        abstract: "Orderly's command-line tools.",
        version: BuildInfo.line("orderly"),
        subcommands: [DeadLetterCommands.self, PipelineCommand.self, WireKeys.self, Probe.self])
}
