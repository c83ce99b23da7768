import NIOCore
import NIOEmbedded
import Testing
import Wire

@Suite("Flush grouping")
struct FlushGroupingTests {
    /// Passes writes through and asks `FlushGrouping` when to flush, as the client handler does.
    final class GroupingHandler: ChannelOutboundHandler {
        typealias OutboundIn = ByteBuffer
        let grouping = FlushGrouping()
        var outstanding = 0

        func flush(context: ChannelHandlerContext) {
            grouping.flushRequested(context: context, outstanding: outstanding)
        }
    }

    @Test("a lone call is flushed at once")
    func lone() throws {
        let handler = GroupingHandler()
        let channel = EmbeddedChannel(handler: handler)
        handler.outstanding = 1
        try channel.writeAndFlush(ByteBuffer(string: "a")).wait()
        #expect(try channel.readOutbound(as: ByteBuffer.self) == ByteBuffer(string: "a"))
        _ = try channel.finish()
    }

    @Test("with many outstanding, writes wait for half of them or the end of the tick")
    func grouped() throws {
        let handler = GroupingHandler()
        let channel = EmbeddedChannel(handler: handler)
        handler.outstanding = 8
        for index in 0..<3 { channel.writeAndFlush(ByteBuffer(string: "\(index)"), promise: nil) }
        #expect(try channel.readOutbound(as: ByteBuffer.self) == nil)
        channel.writeAndFlush(ByteBuffer(string: "3"), promise: nil)
        for index in 0..<4 { #expect(try channel.readOutbound(as: ByteBuffer.self) == ByteBuffer(string: "\(index)")) }
        channel.writeAndFlush(ByteBuffer(string: "4"), promise: nil)
        #expect(try channel.readOutbound(as: ByteBuffer.self) == nil)
        channel.embeddedEventLoop.run()
        #expect(try channel.readOutbound(as: ByteBuffer.self) == ByteBuffer(string: "4"))
        _ = try channel.finish()
    }
}
