import ArgumentParser
import Foundation
import Redis

/// `orderly pipeline`: each event stream's consumer groups, how far behind they are, what they
/// hold unacknowledged and their dead letters, for operators (instead of `XINFO` by hand).
struct PipelineCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pipeline",
        abstract: "Each event stream's consumer groups with their lag, pending entries and dead letters.")

    @OptionGroup var connection: DeadLetterCommands.Connection

    func run() async throws {
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
