import ArgumentParser
import AsyncHTTPClient
import Foundation
import NIOCore
import Redis

/// `orderly pipeline`: each event stream's consumer groups, how far behind they are, what they
/// hold unacknowledged and their dead letters, for operators (instead of `XINFO` by hand); then
/// the gateway's mail outbox, from its metrics.
struct PipelineCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pipeline",
        abstract:
            "Each event stream's consumer groups with their lag, pending entries and dead letters, and the gateway's mail outbox."
    )

    @OptionGroup var connection: DeadLetterCommands.Connection

    @Option(
        help: ArgumentHelp(
            "The gateway's admin address, whose /metrics tell of its mail; ORDERLY_GATEWAY_ADMIN_URL by default.",
            valueName: "url"))
    var gatewayAdminURL = ProcessInfo.processInfo.environment["ORDERLY_GATEWAY_ADMIN_URL"] ?? "http://127.0.0.1:9200"

    func run() async throws {
        try await printStreams()
        print("")
        print(await mailRow())
    }

    private func printStreams() async throws {
        try await connection.withRedis { redis in
            let groups = ConsumerGroups(redis: redis)
            let streams = try await groups.streams()
            guard !streams.isEmpty else {
                print("no event streams (orderly:events:*) in this Redis")
                return
            }
            var rows = [["stream", "group", "consumers", "lag", "pending", "dead letters", "last delivered"]]
            for stream in streams {
                let length = try await redis.send("XLEN", RedisArgument(stream)).integer ?? 0
                let found = try await groups.groups(of: stream)
                if found.isEmpty { rows.append([stream, "(no group)", "0", "\(length)", "0", "0", "-"]) }
                for group in found.sorted(by: { $0.name < $1.name }) {
                    rows.append([
                        stream, group.name, "\(group.consumers)", group.lag.map { "\($0)" } ?? "?",
                        "\(group.pending)", "\(try await groups.deadLetters(of: group.name, from: [stream]))",
                        group.lastDelivered,
                    ])
                }
            }
            print(Self.table(rows))
        }
    }

    /// The gateway's mail outbox as a table of one row, or why it could not be read.
    private func mailRow() async -> String {
        let url = gatewayAdminURL.hasSuffix("/") ? String(gatewayAdminURL.dropLast()) : gatewayAdminURL
        do {
            var request = HTTPClientRequest(url: "\(url)/metrics")
            request.method = .GET
            let response = try await HTTPClient.shared.execute(request, timeout: .seconds(5))
            let body = try await response.body.collect(upTo: 16 << 20)
            guard response.status.code == 200 else { return "mail: \(url)/metrics answered \(response.status.code)" }
            let figures = Self.figures(in: String(buffer: body))
            guard let queued = figures["orderly_mail_queued"] else {
                return "mail: \(url)/metrics tells nothing of mail (is it the gateway's admin port?)"
            }
            let age = figures["orderly_mail_oldest_queued_age_seconds"].map { "\(Int($0)) s" } ?? "?"
            return Self.table([
                ["outbox", "queued", "oldest queued", "dead letters"],
                ["mail", "\(Int(queued))", age, figures["orderly_mail_dead_letters"].map { "\(Int($0))" } ?? "?"],
            ])
        } catch {
            return "mail: the gateway's admin port did not answer at \(url): \(error)"
        }
    }

    /// The unlabelled samples of a Prometheus exposition, by name.
    static func figures(in exposition: String) -> [String: Double] {
        var figures: [String: Double] = [:]
        for line in exposition.split(separator: "\n") where !line.hasPrefix("#") {
            let parts = line.split(separator: " ")
            guard parts.count == 2, !parts[0].contains("{"), let value = Double(parts[1]) else { continue }
            figures[String(parts[0])] = value
        }
        return figures
    }

    /// `rows` in columns as wide as their widest cell, the first row the header.
    static func table(_ rows: [[String]]) -> String {
        let widths = rows[0].indices.map { column in rows.map { $0[column].count }.max() ?? 0 }
        return rows.map { row in
            row.enumerated().map { column, cell in
                column == row.count - 1 ? cell : cell.padding(toLength: widths[column], withPad: " ", startingAt: 0)
            }.joined(separator: "  ")
        }.joined(separator: "\n")
    }
}
