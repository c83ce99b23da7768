import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

/// Reads a server-sent event stream as an app would: one GET held open, its events parsed as
/// they arrive. `items` holds what came so far: the answer's head, then each event, comment and
/// `retry:`, then `end` when the server ended the answer.
final class EventStreamClient: Sendable {
    struct Event: Sendable, Equatable {
        var id: String?
        var type: String?
        var data: String
    }

    enum Item: Sendable, Equatable {
        case head(status: Int, headers: [String: String])
        case event(Event)
        case comment(String)
        case retry(Int)
        case body(String)
        case end
    }

    private let received = Mutex<[Item]>([])
    private let reader = Mutex<Task<Void, Never>?>(nil)

    /// What came so far.
    var items: [Item] { received.withLock { $0 } }

    /// The events that came so far.
    var events: [Event] {
        items.compactMap {
            if case .event(let event) = $0 { return event }
            return nil
        }
    }

    /// The answer's status, once its head came.
    var status: Int? {
        for case .head(let status, _) in items { return status }
        return nil
    }

    /// Whether the server ended the answer.
    var ended: Bool { items.last == .end }

    /// Opens `path` on the gateway at `port` with `headers`.
    static func open(port: Int, path: String, headers: [String: String]) async throws -> EventStreamClient {
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(host: "127.0.0.1", port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    return try NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart>(
                        wrappingChannelSynchronously: channel)
                }
            }
        let client = EventStreamClient()
        let yield: @Sendable (Item) -> Void = { item in client.received.withLock { $0.append(item) } }
        var head = HTTPRequestHead(version: .http1_1, method: .GET, uri: path)
        head.headers.add(name: "Host", value: "127.0.0.1:\(port)")
        head.headers.add(name: "Accept", value: "text/event-stream")
        for (name, value) in headers { head.headers.add(name: name, value: value) }
        let reader = Task {
            _ = try? await channel.executeThenClose { inbound, outbound in
                try await outbound.write(.head(head))
                try await outbound.write(.end(nil))
                var pending = ""
                var isEventStream = false
                for try await part in inbound {
                    switch part {
                    case .head(let response):
                        var headers: [String: String] = [:]
                        for (name, value) in response.headers { headers[name.lowercased()] = value }
                        isEventStream = headers["content-type"]?.hasPrefix("text/event-stream") == true
                        yield(.head(status: Int(response.status.code), headers: headers))
                    case .body(let buffer):
                        pending += String(buffer: buffer)
                        guard isEventStream else { continue }
                        while let end = pending.range(of: "\n\n") {
                            let block = String(pending[..<end.lowerBound])
                            pending.removeSubrange(..<end.upperBound)
                            yield(Self.parse(block))
                        }
                    case .end:
                        if !isEventStream { yield(.body(pending)) }
                        yield(.end)
                        return
                    }
                }
            }
        }
        client.reader.withLock { $0 = reader }
        return client
    }

    /// Closes the connection, as a client going away does.
    func close() { reader.withLock { $0?.cancel() } }

    private static func parse(_ block: String) -> Item {
        if block.hasPrefix(":") { return .comment(String(block.dropFirst()).trimmingPrefix(" ").description) }
        var event = Event(data: "")
        var data: [String] = []
        for line in block.split(separator: "\n", omittingEmptySubsequences: false) {
            let (field, value) =
                line.firstIndex(of: ":").map {
                    (String(line[..<$0]), String(line[line.index(after: $0)...].trimmingPrefix(" ")))
                } ?? (String(line), "")
            switch field {
            case "retry": return .retry(Int(value) ?? -1)
            case "id": event.id = value
            case "event": event.type = value
            case "data": data.append(value)
            default: break
            }
        }
        event.data = data.joined(separator: "\n")
        return .event(event)
    }
}
