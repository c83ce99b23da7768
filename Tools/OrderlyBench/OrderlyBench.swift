import ArgumentParser
import Foundation
import NIOCore
import NIOPosix
import Runtime

/// The project's benchmarks and load generator: `orderly-bench`, apart from the shipped `orderly`
/// command. It speaks Wire and HTTP and links no service's code; the order lists' benchmark,
/// which loads the orders service's own repository, is `orderly-orders bench-order-lists`.
struct OrderlyBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "orderly-bench",
        abstract: "Orderly's benchmarks and load generator.",
        version: BuildInfo.line("orderly-bench"),
        subcommands: [BenchWire.self, BenchStorage.self, LoadGen.self])
}

/// The entry point: sets up how tasks run, then hands over to the command line.
@main
enum OrderlyBenchMain {
    static func main() async {
        // Swift tasks run on NIO's event loops instead of a separate thread pool, as in the
        // services it measures. Must come first.
        NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()
        await OrderlyBench.main(nil)
    }
}

/// Prints a line at once, unbuffered, so progress shows even when the output is piped.
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}
