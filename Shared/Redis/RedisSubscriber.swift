import Domain
import Foundation
import Synchronization

/// A message published on a channel.
public struct RedisMessage: Sendable, Hashable {
    public var channel: String
    public var payload: [UInt8]

    public init(channel: String, payload: [UInt8]) {
        self.channel = channel
        self.payload = payload
    }
}

/// Receives pub/sub messages on a thread of its own and delivers them as an `AsyncSequence`.
/// When the connection breaks (Redis restarted), it reconnects with backoff and subscribes again;
/// messages published while it was away are lost, as pub/sub is best-effort by design.
///
/// `sharded` channels are Redis's sharded pub/sub (`SSUBSCRIBE`, published with `SPUBLISH`),
/// all of them in one slot: on a cluster, the subscriber reads the slot map and listens to that
/// slot's master, and reads the map again when the slot moves (Redis then ends the
/// subscription). Plain channels on a cluster are heard from any node, the seeds tried in turn.
public final class RedisSubscriber: Sendable {
    public let messages: AsyncStream<RedisMessage>
    private let continuation: AsyncStream<RedisMessage>.Continuation
    private let state = Mutex(State())

    private struct State {
        var stopped = false
        var socket: Int32?
        var subscribed = false
    }

    /// Starts receiving on `channels`.
    public init(configuration: RedisConfiguration, channels: [String], sharded: Bool = false) {
        (messages, continuation) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(10_000))
        let thread = Thread { [self] in receive(configuration: configuration, channels: channels, sharded: sharded) }
        thread.name = "redis-subscriber"
        thread.start()
    }

    /// Whether the subscription is currently in place (for tests and readiness).
    public var isSubscribed: Bool { state.withLock { $0.subscribed } }

    /// Stops receiving and ends `messages`.
    public func stop() {
        // Under the lock: the receiving thread clears `socket` under it before closing the
        // connection, so the descriptor shut down here cannot have been reused meanwhile.
        state.withLock { state in
            state.stopped = true
            if let socket = state.socket { shutdown(socket, Int32(SHUT_RDWR)) }
        }
        continuation.finish()
    }

    private func receive(configuration: RedisConfiguration, channels: [String], sharded: Bool) {
        var backoff = Duration.milliseconds(50)
        var attempt = 0
        let (subscribe, message) = sharded ? ("SSUBSCRIBE", "smessage") : ("SUBSCRIBE", "message")
        while !state.withLock({ $0.stopped }) {
            do {
                attempt += 1
                let node = try Self.node(of: configuration, for: sharded ? channels.first : nil, attempt: attempt)
                let connection = try RedisConnection(node, readTimeout: .zero)
                defer {
                    state.withLock {
                        $0.socket = nil
                        $0.subscribed = false
                    }
                    connection.close()
                }
                let registered = state.withLock { state -> Bool in
                    guard !state.stopped else { return false }
                    state.socket = connection.fileDescriptor
                    return true
                }
                guard registered else { return }
                let replies = try connection.pipeline([[RedisArgument(subscribe)] + channels.map { RedisArgument($0) }])
                guard case .array = replies.first else { throw RedisError.unexpectedReply("\(replies)") }
                for _ in 1..<max(1, channels.count) { _ = try connection.nextReply() }
                state.withLock { $0.subscribed = true }
                backoff = .milliseconds(50)
                while true {
                    let reply = try connection.nextReply()
                    // The slot moved to another master: subscribe there.
                    if reply.elements?.first?.text == "sunsubscribe" { throw RedisError.unavailable("slot moved") }
                    guard let parts = reply.elements, parts.count == 3, parts[0].text == message,
                        let channel = parts[1].text, case .bulk(let payload) = parts[2]
                    else { continue }
                    continuation.yield(RedisMessage(channel: channel, payload: payload))
                }
            } catch {
                guard !state.withLock({ $0.stopped }) else { return }
                Thread.sleep(forTimeInterval: backoff.timeInterval)
                backoff = min(backoff * 2, .seconds(2))
            }
        }
    }

    /// Where to subscribe: Redis itself; on a cluster, the master of `channel`'s slot, or for
    /// plain channels a seed, the next one at each attempt.
    private static func node(of configuration: RedisConfiguration, for channel: String?, attempt: Int)
        throws(RedisError)
        -> RedisConfiguration
    {
        guard configuration.isCluster else { return configuration }
        var node = configuration
        node.clusterSeeds = []
        let seed = configuration.clusterSeeds[attempt % configuration.clusterSeeds.count]
        (node.host, node.port) = (seed.host, seed.port)
        guard let channel else { return node }
        let connection = try RedisConnection(node, readTimeout: configuration.commandTimeout)
        defer { connection.close() }
        guard let reply = try connection.pipeline([["CLUSTER", "SLOTS"]]).first,
            let owners = try? RedisClusterClient.owners(from: reply, askedOf: seed),
            let owner = owners[RedisClusterClient.slot(of: channel)]
        else { throw .unavailable("no master serves the slot of \(channel)") }
        (node.host, node.port) = (owner.host, owner.port)
        return node
    }
}
