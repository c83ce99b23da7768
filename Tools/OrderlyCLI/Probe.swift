import ArgumentParser
import AsyncHTTPClient
import Foundation
import NIOCore

/// `orderly probe`: asks this container's process whether it is ready, for the image's
/// `HEALTHCHECK` (no curl in the image): exit 0 when `/readyz` on the admin port answers 200.
struct Probe: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Exit 0 when the process on this host's admin port is ready (the image's health check).")

    @Option(help: "The admin port; ORDERLY_ADMIN_PORT, else 9200.")
    var port = Int(ProcessInfo.processInfo.environment["ORDERLY_ADMIN_PORT"] ?? "") ?? 9200

    @Option(help: "The path asked: /readyz (ready to serve), /healthz (alive) or /metrics.")
    var path = "/readyz"

    @Flag(help: "Print the answer's body.")
    var print = false

    func validate() throws {
        guard (1...65535).contains(port) else { throw ValidationError("--port must be from 1 to 65535") }
        guard path.hasPrefix("/") else { throw ValidationError("--path must start with /") }
    }

    func run() async throws {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)")
        request.method = .GET
        let status: UInt
        do {
            let response = try await HTTPClient.shared.execute(request, timeout: .seconds(3))
            let body = try await response.body.collect(upTo: 16 << 20)
            status = response.status.code
            if print { FileHandle.standardOutput.write(Data(body.readableBytesView)) }
        } catch {
            FileHandle.standardError.write(Data("no answer on port \(port): \(error)\n".utf8))
            throw ExitCode(1)
        }
        guard status == 200 else {
            FileHandle.standardError.write(Data("\(path) answered \(status)\n".utf8))
            throw ExitCode(1)
        }
    }
}
