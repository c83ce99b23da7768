import CHiredis
import Foundation

/// One hiredis connection. Every call blocks, so it is only ever used from a thread of its own
/// (`RedisClient`'s thread pool, or a subscriber's thread), never from an event loop or the
/// Swift cooperative pool. After any I/O error hiredis leaves the context unusable: `isBroken`
/// turns true and the owner drops the connection.
///
/// `@unchecked Sendable`: it moves between threads, but only as a whole: the pool hands it to
/// one job at a time (checked out under a lock), and a subscriber's connection never leaves its
/// thread except for `fileDescriptor`, read to shut the socket down.
final class RedisConnection: @unchecked Sendable {
    private var context: UnsafeMutablePointer<redisContext>?
    /// Whether the last failure was the server closing the connection (end of file), as it
    /// does for idle connections when Redis restarts: no command of ours was running then.
    private(set) var closedByServer = false

    /// Connects, authenticates and selects the database; throws `RedisError.unavailable` when
    /// Redis cannot be reached, `RedisError.server` when it refuses the credentials. A read that
    /// takes longer than `readTimeout` fails the connection (zero: wait forever).
    init(_ configuration: RedisConfiguration, readTimeout: Duration) throws(RedisError) {
        let (host, port) = (configuration.host, configuration.port)
        guard let context = redisConnectWithTimeout(host, Int32(port), Self.timeval(configuration.connectTimeout))
        else { throw .unavailable("cannot allocate a redis context") }
        if context.pointee.err != 0 {
            let message = Self.errorString(context)
            redisFree(context)
            throw .unavailable("cannot connect to \(host):\(port): \(message)")
        }
        redisSetTimeout(context, Self.timeval(readTimeout))
        redisEnableKeepAlive(context)
        self.context = context
        var setup: [[RedisArgument]] = []
        if let password = configuration.password {
            setup.append(
                ["AUTH"] + (configuration.username.map { [RedisArgument($0)] } ?? []) + [RedisArgument(password)])
        }
        if configuration.database != 0 { setup.append(["SELECT", RedisArgument(String(configuration.database))]) }
        for reply in setup.isEmpty ? [] : try pipeline(setup) {
            if case .error(let message) = reply {
                close()
                // The reply names no secret (WRONGPASS, NOAUTH, an unknown database).
                throw .server("\(host):\(port) refused the connection's setup: \(message)")
            }
        }
    }

    deinit { close() }

    /// Whether an I/O error has made the connection unusable.
    var isBroken: Bool { context == nil || context!.pointee.err != 0 }

    /// The socket, for `shutdown(2)` from another thread to wake a blocked read.
    var fileDescriptor: Int32? { context?.pointee.fd }

    func close() {
        if let context { redisFree(context) }
        context = nil
    }

    /// Sends one command and waits for its reply. An error reply is returned as `.error`.
    func command(_ arguments: [RedisArgument]) throws(RedisError) -> RedisValue {
        try pipeline([arguments])[0]
    }

    /// Sends every command, then reads every reply: one round trip for all of them.
    func pipeline(_ commands: [[RedisArgument]]) throws(RedisError) -> [RedisValue] {
        guard let context, context.pointee.err == 0 else { throw .unavailable("connection is closed") }
        let request = Self.encode(commands)
        let appended = request.withUnsafeBufferPointer { bytes in
            bytes.withMemoryRebound(to: CChar.self) { redisAppendFormattedCommand(context, $0.baseAddress, $0.count) }
        }
        guard appended == REDIS_OK else { throw brokenError(context) }
        var replies: [RedisValue] = []
        replies.reserveCapacity(commands.count)
        for _ in commands {
            replies.append(try readReply(context))
        }
        return replies
    }

    /// Waits for the next reply pushed by the server (pub/sub messages).
    func nextReply() throws(RedisError) -> RedisValue {
        guard let context, context.pointee.err == 0 else { throw .unavailable("connection is closed") }
        return try readReply(context)
    }

    /// The commands in the Redis protocol (RESP: each an array of bulk strings), in one buffer
    /// that hiredis copies to its output in one call, rather than formatting each command
    /// from an argument vector.
    static func encode(_ commands: [[RedisArgument]]) -> [UInt8] {
        var size = 0
        for arguments in commands {
            size += 16
            for argument in arguments { size += argument.bytes.count + 16 }
        }
        var request: [UInt8] = []
        request.reserveCapacity(size)
        func endLine() {
            request.append(UInt8(ascii: "\r"))
            request.append(UInt8(ascii: "\n"))
        }
        func header(_ marker: Unicode.Scalar, _ count: Int) {
            request.append(UInt8(ascii: marker))
            request.append(contentsOf: String(count).utf8)
            endLine()
        }
        for arguments in commands {
            header("*", arguments.count)
            for argument in arguments {
                header("$", argument.bytes.count)
                request.append(contentsOf: argument.bytes)
                endLine()
            }
        }
        return request
    }

    private func readReply(_ context: UnsafeMutablePointer<redisContext>) throws(RedisError) -> RedisValue {
        var raw: UnsafeMutableRawPointer?
        guard redisGetReply(context, &raw) == REDIS_OK, let raw else { throw brokenError(context) }
        let reply = raw.assumingMemoryBound(to: redisReply.self)
        defer { freeReplyObject(raw) }
        return Self.value(of: reply)
    }

    private static func value(of reply: UnsafeMutablePointer<redisReply>) -> RedisValue {
        let item = reply.pointee
        func bytes() -> [UInt8] {
            guard let string = item.str else { return [] }
            return Array(UnsafeRawBufferPointer(start: string, count: Int(item.len)))
        }
        switch item.type {
        case REDIS_REPLY_STRING: return .bulk(bytes())
        case REDIS_REPLY_STATUS: return .status(String(decoding: bytes(), as: UTF8.self))
        case REDIS_REPLY_ERROR: return .error(String(decoding: bytes(), as: UTF8.self))
        case REDIS_REPLY_INTEGER: return .integer(item.integer)
        case REDIS_REPLY_NIL: return .null
        case REDIS_REPLY_ARRAY:
            var values: [RedisValue] = []
            values.reserveCapacity(Int(item.elements))
            for index in 0..<Int(item.elements) {
                if let element = item.element[index] { values.append(value(of: element)) }
            }
            return .array(values)
        default:
            return .error("reply of unknown type \(item.type)")
        }
    }

    private func brokenError(_ context: UnsafeMutablePointer<redisContext>) -> RedisError {
        closedByServer = context.pointee.err == REDIS_ERR_EOF
        return .unavailable(Self.errorString(context))
    }

    private static func errorString(_ context: UnsafeMutablePointer<redisContext>) -> String {
        withUnsafeBytes(of: context.pointee.errstr) { raw in
            let bytes = raw.prefix { $0 != 0 }
            return String(decoding: bytes, as: UTF8.self)
        }
    }

    private static func timeval(_ duration: Duration) -> timeval {
        let (seconds, attoseconds) = duration.components
        return Foundation.timeval(tv_sec: Int(seconds), tv_usec: Int(attoseconds / 1_000_000_000_000))
    }
}
