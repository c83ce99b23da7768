import ArgumentParser
import Foundation
import Wire

/// `orderly wire-keys`: the Wire keys one service needs, derived from the operator's secret, so
/// that its process can be given those alone (`ORDERLY_WIRE_KEYS`) instead of the secret.
struct WireKeys: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "wire-keys",
        abstract: "Print ORDERLY_WIRE_KEYS for one service, from ORDERLY_INTERNAL_SECRET.",
        discussion: """
            The keys are those of the pairs the service is part of: to each service it calls, and \
            from each service that calls it. For example, for orders:
              orderly wire-keys orders --calls catalog --called-by gateway,payments
            """)

    @Argument(help: "The service whose process is to hold the keys.") var service: String
    @Option(help: "The services it calls, comma-separated.") var calls: String = ""
    @Option(help: "The services that call it, comma-separated.") var calledBy: String = ""

    func run() throws {
        guard let text = ProcessInfo.processInfo.environment["ORDERLY_INTERNAL_SECRET"], text.utf8.count >= 16,
            let secret = WireSecret(text)
        else { throw ValidationError("set ORDERLY_INTERNAL_SECRET (16 bytes or more) in the environment") }
        func names(_ list: String) -> [String] {
            list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        }
        let pairs =
            names(calls).map { (service, $0) } + names(calledBy).map { ($0, service) }
        guard !pairs.isEmpty else { throw ValidationError("name the services it --calls or is --called-by") }
        let entries = pairs.compactMap { secret.exportedPair(caller: $0.0, server: $0.1) }
        print("ORDERLY_WIRE_KEYS=" + entries.joined(separator: ","))
    }
}
