import NIOCore
import NIOPosix
import Wire
import WireCodec

/// The ceiling for `bench-wire`: the same length-prefixed framing, the same kind of async callers
/// and the same flushing on both sides (the client groups flushes like `WireClientHandler`, the
/// server flushes once per read burst like `WireServerHandler`), but no JSON, no envelope, no
/// routing and no tasks: the server echoes each frame from its channel handler.
enum RawEcho {
    static func start() async throws -> (channel: any Channel, port: Int) {
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.tcpOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandlers([
                        ByteToMessageHandler(WireFrameDecoder()), MessageToByteHandler(WireFrameEncoder()),
                        EchoHandler(),
                    ])
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        return (channel, channel.localAddress!.port!)
    }

    static func connect(port: Int) async throws -> EchoConnection {
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelOption(.tcpOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandlers([
                        ByteToMessageHandler(WireFrameDecoder()), MessageToByteHandler(WireFrameEncoder()),
                        EchoClientHandler(),
                    ])
                }
            }
            .connect(host: "127.0.0.1", port: port).get()
        return EchoConnection(channel: channel)
    }

    /// Writes every frame straight back, flushing once per read burst.
    final class EchoHandler: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        typealias OutboundOut = ByteBuffer

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            context.write(data, promise: nil)
        }

        func channelReadComplete(context: ChannelHandlerContext) {
            context.flush()
        }
    }

    struct EchoConnection: Sendable {
        let channel: any Channel

        func roundTrip(_ payload: ByteBuffer) async throws -> ByteBuffer {
            let promise = channel.eventLoop.makePromise(of: ByteBuffer.self)
            channel.writeAndFlush(EchoClientHandler.Call(payload: payload, promise: promise), promise: nil)
            return try await promise.futureResult.get()
        }

        func close() async throws {
            try await channel.close()
        }
    }

    /// Answers are in request order, so a queue of promises matches them.
    final class EchoClientHandler: ChannelDuplexHandler {
        typealias InboundIn = ByteBuffer
        typealias OutboundIn = Call
        typealias OutboundOut = ByteBuffer

        struct Call {
            var payload: ByteBuffer
            var promise: EventLoopPromise<ByteBuffer>
        }

        private var waiting = CircularBuffer<EventLoopPromise<ByteBuffer>>()
        private let flushes = FlushGrouping()

        func flush(context: ChannelHandlerContext) {
            flushes.flushRequested(context: context, outstanding: waiting.count)
        }

        func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
            let call = unwrapOutboundIn(data)
            waiting.append(call.promise)
            context.write(wrapOutboundOut(call.payload), promise: promise)
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            waiting.popFirst()?.succeed(unwrapInboundIn(data))
        }

        func channelInactive(context: ChannelHandlerContext) {
            while let promise = waiting.popFirst() { promise.fail(ChannelError.ioOnClosedChannel) }
        }
    }
}
