import ArgumentParser
import Foundation
import Redis

/// `orderly dlq`: the dead-letter streams, for operators.
struct DeadLetterCommands: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dlq",
        abstract: "List, show and replay events that failed too often (orderly:dlq:<group>).",
        subcommands: [List.self, Show.self, Replay.self])

    struct Connection: ParsableArguments {
        @Option(
            help: ArgumentHelp(
                "Redis URL, redis://[[user]:password@]host:port[/database]; ORDERLY_REDIS_URL by default.",
                valueName: "url"))
        var redisURL: String = ProcessInfo.processInfo.environment["ORDERLY_REDIS_URL"] ?? "redis://127.0.0.1:6379"

        /// Runs `body` with a client of the dead-letter streams, closed afterwards.
        func with(_ body: (DeadLetters) async throws -> Void) async throws {
            try await withRedis { try await body(DeadLetters(redis: $0)) }
        }

        /// Runs `body` with a Redis client, closed afterwards.
        func withRedis(_ body: (RedisClient) async throws -> Void) async throws {
            guard var configuration = RedisConfiguration(url: redisURL) else {
                throw ValidationError("--redis-url must be redis://[[user]:password@]host:port[/database]")
            }
            configuration.poolSize = 1
            let redis = RedisClient(configuration: configuration)
            do {
                try await body(redis)
            } catch {
                await redis.shutdown()
                throw error
            }
            await redis.shutdown()
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Without a group: each group with dead letters and how many. With one: its entries.")

        @OptionGroup var connection: Connection
        @Argument(help: "A consumer group, such as notifications.") var group: String?
        @Option(help: "Entries after this id.") var after: String?
        @Option(help: "At most this many entries (1–1000).") var limit: Int = 50

        func validate() throws {
            guard (1...1000).contains(limit) else { throw ValidationError("--limit must be from 1 to 1000") }
        }

        func run() async throws {
            try await connection.with { deadLetters in
                guard let group else {
                    let groups = try await deadLetters.groups()
                    if groups.isEmpty { print("no dead letters") }
                    for (group, count) in groups { print("\(group)\t\(count)") }
                    return
                }
                let entries = try await deadLetters.list(group: group, after: after, limit: limit)
                if entries.isEmpty { print("no dead letters in \(group)") }
                for entry in entries {
                    let type = entry.fields["type"] ?? "?"
                    let event = entry.fields["id"] ?? "?"
                    print("\(entry.id)\t\(type)\tevent \(event)\t\(entry.error.prefix(120))")
                }
            }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "One entry, every field.")

        @OptionGroup var connection: Connection
        @Argument(help: "The consumer group.") var group: String
        @Argument(help: "The entry's id in the dead-letter stream.") var id: String

        func run() async throws {
            try await connection.with { deadLetters in
                guard let entry = try await deadLetters.entry(group: group, id: id) else {
                    throw ValidationError("no entry \(id) in \(deadLetterStream(of: group))")
                }
                print("entry:   \(entry.id)")
                print("error:   \(entry.error)")
                print("from:    \(entry.sourceStream) \(entry.sourceID)")
                for (name, value) in entry.fields.sorted(by: { $0.key < $1.key }) { print("\(name): \(value)") }
            }
        }
    }

    struct Replay: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Put entries back on the stream they came from; consumers that applied them drop them.")

        @OptionGroup var connection: Connection
        @Argument(help: "The consumer group.") var group: String
        @Argument(help: "Entry ids; none with --all.") var ids: [String] = []
        @Flag(help: "Replay every entry of the group.") var all = false

        func validate() throws {
            guard all != !ids.isEmpty else { throw ValidationError("name entry ids, or --all") }
        }

        func run() async throws {
            var failed = 0
            try await connection.with { deadLetters in
                var targets = ids
                if all {
                    var page = try await deadLetters.list(group: group, limit: 1000)
                    while let last = page.last {
                        targets += page.map(\.id)
                        page = try await deadLetters.list(group: group, after: last.id, limit: 1000)
                    }
                }
                for (index, id) in targets.enumerated() {
                    do {
                        let streamID = try await deadLetters.replay(group: group, id: id)
                        print("[\(index + 1)/\(targets.count)] \(id) replayed as \(streamID)")
                    } catch {
                        failed += 1
                        print("[\(index + 1)/\(targets.count)] \(id) not replayed: \(error)")
                    }
                }
            }
            if failed > 0 { throw ExitCode(1) }
        }
    }
}
