import Synchronization

/// Redis Cluster, spoken to as every cluster client does.
///
/// A key belongs to one of 16,384 slots: the CRC16 of its hash tag (the text between the first
/// `{` and the `}` after it, when there is some) or else of the whole key. The slots are spread
/// over the masters; the map is read with `CLUSTER SLOTS` from any node that answers. A command
/// goes to the master of its key's slot. A `MOVED` answer (the slot has a new master) is followed
/// with the map read again; an `ASK` answer (the slot is being migrated, and this key already
/// went) is followed once, to the node named, behind `ASKING`, leaving the map as it is. Keys
/// that must be used together (a stream and its consumer group's reads, a store's events) share a
/// hash tag, so that they share a slot.
public final class RedisClusterClient: Sendable {
    /// A master's address.
    public struct Node: Hashable, Sendable, CustomStringConvertible {
        public var host: String
        public var port: Int
        public var description: String { "\(host):\(port)" }
    }

    public static let slots = 16_384
    /// Redirections followed for one command before giving up: a map changing that often is
    /// a cluster being reshaped, and the caller retries later.
    public static let maximumRedirections = 5

    private let seeds: [Node]
    private let template: RedisConfiguration
    private struct State {
        /// The master of each slot; empty until the map is first read.
        var owners: [Node?] = []
        var clients: [Node: RedisClient] = [:]
    }
    private let state = Mutex(State())

    /// `seeds`: any of the cluster's nodes; `configuration` the rest of what each connection
    /// needs (credentials, timeouts, pool size), its host and port ignored.
    public init(seeds: [Node], configuration: RedisConfiguration) {
        self.seeds = seeds
        self.template = configuration
    }

    /// The slot of `key`.
    public static func slot(of key: [UInt8]) -> Int {
        var hashed = key[...]
        if let open = key.firstIndex(of: UInt8(ascii: "{")),
            let close = key[(open + 1)...].firstIndex(of: UInt8(ascii: "}")), close > open + 1
        {
            hashed = key[(open + 1)..<close]
        }
        return Int(crc16(hashed)) % slots
    }

    public static func slot(of key: String) -> Int { slot(of: Array(key.utf8)) }

    /// CRC-16/XMODEM (polynomial 0x1021, no reflection, starting at 0), Redis Cluster's.
    static func crc16(_ bytes: ArraySlice<UInt8>) -> UInt16 {
        var crc: UInt16 = 0
        for byte in bytes {
            crc ^= UInt16(byte) << 8
            for _ in 0..<8 { crc = crc & 0x8000 != 0 ? (crc << 1) ^ 0x1021 : crc << 1 }
        }
        return crc
    }

    /// The master that serves `key` by the map as last read.
    public func node(for key: String) async throws -> Node {
        try await node(slot: Self.slot(of: key))
    }

    /// The master that serves `slot` by the map as last read; for no slot, any master.
    func node(slot: Int?) async throws -> Node {
        func lookUp(_ owners: [Node?]) -> Node? {
            guard !owners.isEmpty else { return nil }
            guard let slot else { return owners.lazy.compactMap { $0 }.first }
            return owners[slot]
        }
        if let node = state.withLock({ lookUp($0.owners) }) { return node }
        try await refresh()
        guard let node = state.withLock({ lookUp($0.owners) }) else {
            throw RedisError.unavailable("no master serves slot \(slot.map(String.init) ?? "any")")
        }
        return node
    }

    /// Every master, by the map as last read (read first if it never was).
    public func masters() async throws -> [Node] {
        if state.withLock({ $0.owners.isEmpty }) { try await refresh() }
        return state.withLock { state in
            var seen: Set<Node> = []
            return state.owners.compactMap { $0 }.filter { seen.insert($0).inserted }
        }
    }

    /// Reads the slot map again, from the nodes known and then the seeds, the first that answers.
    public func refresh() async throws {
        let known = state.withLock { Array($0.clients.keys) }
        var lastError: any Error = RedisError.unavailable("no node of the cluster to ask")
        for node in known + seeds.filter({ !known.contains($0) }) {
            do {
                let reply = try await client(for: node).send("CLUSTER", "SLOTS")
                let owners = try Self.owners(from: reply, askedOf: node)
                state.withLock { $0.owners = owners }
                return
            } catch {
                lastError = error
            }
        }
        throw lastError
    }

    /// The master of each slot, from a `CLUSTER SLOTS` reply: `[start, end, [host, port, id], replicas…]`.
    static func owners(from reply: RedisValue, askedOf node: Node) throws -> [Node?] {
        var owners = [Node?](repeating: nil, count: slots)
        for range in reply.elements ?? [] {
            guard let fields = range.elements, fields.count >= 3, let start = fields[0].integer,
                let end = fields[1].integer, 0 <= start, start <= end, end < slots,
                let master = fields[2].elements, master.count >= 2, let port = master[1].integer,
                (1...65535).contains(port)
            else { throw RedisError.unexpectedReply("CLUSTER SLOTS: \(range)") }
            // An empty or unknown host is the node that answered (`cluster-announce-hostname` unset).
            let host = master[0].text.flatMap { $0.isEmpty || $0 == "?" ? nil : $0 } ?? node.host
            for slot in Int(start)...Int(end) { owners[slot] = Node(host: host, port: Int(port)) }
        }
        return owners
    }

    /// Runs one command on the master of `key`'s slot. An error reply is thrown as `RedisError.server`.
    @discardableResult
    public func send(key: String, _ arguments: [RedisArgument]) async throws -> RedisValue {
        let reply = try await pipeline(key: key, [arguments])[0]
        if case .error(let message) = reply { throw RedisError.server(message) }
        return reply
    }

    /// Sends commands whose keys share `key`'s slot in one round trip, following redirections,
    /// and returns every reply, error replies included.
    public func pipeline(key: String, _ commands: [[RedisArgument]]) async throws -> [RedisValue] {
        try await pipeline(slot: Self.slot(of: key), commands)
    }

    /// Sends commands whose keys are in `slot` (or that have no key, when nil) in one round trip.
    func pipeline(slot: Int?, _ commands: [[RedisArgument]]) async throws -> [RedisValue] {
        guard !commands.isEmpty else { return [] }
        var node = try await node(slot: slot)
        var asking = false
        for _ in 0...Self.maximumRedirections {
            let sent = asking ? commands.flatMap { [["ASKING"], $0] } : commands
            let replies = try await client(for: node).pipeline(sent)
            let answers = asking ? stride(from: 1, to: replies.count, by: 2).map { replies[$0] } : replies
            // Behind MULTI the first answer is its OK, and the redirection comes with the next.
            switch answers.lazy.compactMap(Redirection.init).first {
            case .moved(let target):
                // The slot has a new master: the map is stale, read it again, then ask the new one.
                try? await refresh()
                node = target
                asking = false
            case .ask(let target):
                node = target
                asking = true
            case nil:
                return answers
            }
        }
        throw RedisError.unavailable("redirected more than \(Self.maximumRedirections) times for slot \(slot ?? -1)")
    }

    /// A `MOVED` or `ASK` error reply: `MOVED 3999 127.0.0.1:6381`.
    enum Redirection: Equatable {
        case moved(Node)
        case ask(Node)

        init?(_ reply: RedisValue?) {
            guard case .error(let message) = reply else { return nil }
            let parts = message.split(separator: " ")
            guard parts.count == 3, parts[0] == "MOVED" || parts[0] == "ASK", Int(parts[1]) != nil,
                let colon = parts[2].lastIndex(of: ":"), let port = Int(parts[2][parts[2].index(after: colon)...]),
                (1...65535).contains(port)
            else { return nil }
            let node = Node(host: String(parts[2][..<colon]), port: port)
            self = parts[0] == "MOVED" ? .moved(node) : .ask(node)
        }
    }

    func client(for node: Node) -> RedisClient {
        state.withLock { state in
            if let client = state.clients[node] { return client }
            var configuration = template
            configuration.host = node.host
            configuration.port = node.port
            let client = RedisClient(configuration: configuration)
            state.clients[node] = client
            return client
        }
    }

    /// Closes every node's connections.
    public func shutdown() async {
        let clients = state.withLock { state in
            defer { state.clients = [:] }
            return Array(state.clients.values)
        }
        for client in clients { await client.shutdown() }
    }
}
