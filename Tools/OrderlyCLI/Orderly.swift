import ArgumentParser
import Runtime

/// The operator's command line: dead letters, the event pipeline, Wire keys and the containers'
/// health probe, over Redis and HTTP. An admin's password is reset with the gateway's executable
/// (`orderly-gateway admin reset-password`), the benchmarks and the load generator are
/// `orderly-bench`'s. Called by a service's name, the same executable is that service
/// (`OrderlyMain`).
struct Orderly: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "orderly",
        abstract: "Orderly's command-line tools.",
        version: BuildInfo.line("orderly"),
        subcommands: [DeadLetterCommands.self, PipelineCommand.self, WireKeys.self, Probe.self])
}
