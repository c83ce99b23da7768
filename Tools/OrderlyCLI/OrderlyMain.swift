import ArgumentParser
import Foundation
import NIOCore
import NIOPosix

/// The entry point: sets up how tasks run, then hands over to the command line.
@main
enum OrderlyMain {
    static func main() async {
        // Swift tasks run on NIO's event loops instead of a separate thread pool, so a request
        // handled in a task does not switch threads on its way in and out. Must come first.
        NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()
        await Orderly.main(nil)
    }
}

/// Prints a line at once, unbuffered, so progress shows even when the output is piped.
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}
