import Logging
import NIOCore
import Synchronization

/// Counts the public HTTP connections open and closes a new one at once beyond `maximum`, so
/// that a flood of idle connections cannot exhaust the gateway's descriptors and memory.
final class ConnectionLimit: Sendable {
    let maximum: Int
    private let open = Atomic<Int>(0)
    private let refused = Atomic<Int>(0)
    private let logger: Logger

    init(maximum: Int, logger: Logger) {
        self.maximum = maximum
        self.logger = logger
    }

    /// The handler for one new connection.
    func handler() -> Handler { Handler(limit: self) }

    final class Handler: ChannelInboundHandler, RemovableChannelHandler {
        typealias InboundIn = NIOAny
        let limit: ConnectionLimit
        private var counted = false

        init(limit: ConnectionLimit) { self.limit = limit }

        func channelActive(context: ChannelHandlerContext) {
            let now = limit.open.wrappingAdd(1, ordering: .relaxed).newValue
            counted = true
            guard now > limit.maximum else { return context.fireChannelActive() }
            let refused = limit.refused.wrappingAdd(1, ordering: .relaxed).newValue
            if refused == 1 || refused.isMultiple(of: 1000) {
                limit.logger.warning(
                    "HTTP connection refused: too many open",
                    metadata: ["http.connections": "\(now - 1)", "http.refused_total": "\(refused)"])
            }
            context.close(promise: nil)
        }

        func channelInactive(context: ChannelHandlerContext) {
            if counted {
                counted = false
                limit.open.wrappingSubtract(1, ordering: .relaxed)
            }
            context.fireChannelInactive()
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) { context.fireChannelRead(data) }
    }
}
