import NIOCore
import NIOEmbedded
import NIOTestUtils
import Testing
import Wire
import WireCodec

@Suite("Frame codec")
struct FrameCodecTests {
    private func frame(_ text: String) -> ByteBuffer {
        var buffer = ByteBuffer()
        buffer.writeInteger(UInt32(text.utf8.count))
        buffer.writeString(text)
        return buffer
    }

    @Test("the decoder passes NIO's decoder verifier (every split and coalescing of the input)")
    func verifier() throws {
        try ByteToMessageDecoderVerifier.verifyDecoder(
            inputOutputPairs: [
                (frame("{}"), [ByteBuffer(string: "{}")]),
                (frame("hello") + frame(""), [ByteBuffer(string: "hello"), ByteBuffer()]),
                (frame(String(repeating: "x", count: 1000)), [ByteBuffer(string: String(repeating: "x", count: 1000))]),
            ],
            decoderFactory: { WireFrameDecoder(stallTimeout: nil) })
    }

    @Test("a frame split across many reads arrives once, whole")
    func splitFrames() throws {
        let channel = EmbeddedChannel(handler: ByteToMessageHandler(WireFrameDecoder()))
        let bytes = frame("{\"v\":1}")
        for index in 0..<bytes.readableBytes {
            try channel.writeInbound(bytes.getSlice(at: index, length: 1)!)
        }
        #expect(try channel.readInbound(as: ByteBuffer.self) == ByteBuffer(string: "{\"v\":1}"))
        #expect(try channel.readInbound(as: ByteBuffer.self) == nil)
        _ = try channel.finish()
    }

    @Test("several frames in one read come out one by one")
    func coalescedFrames() throws {
        let channel = EmbeddedChannel(handler: ByteToMessageHandler(WireFrameDecoder()))
        try channel.writeInbound(frame("a") + frame("bb") + frame("ccc"))
        #expect(try channel.readInbound(as: ByteBuffer.self) == ByteBuffer(string: "a"))
        #expect(try channel.readInbound(as: ByteBuffer.self) == ByteBuffer(string: "bb"))
        #expect(try channel.readInbound(as: ByteBuffer.self) == ByteBuffer(string: "ccc"))
        _ = try channel.finish()
    }

    @Test("a length above the limit is an error before any payload is buffered")
    func limit() throws {
        let channel = EmbeddedChannel(handler: ByteToMessageHandler(WireFrameDecoder(maximumFrameLength: 16)))
        var header = ByteBuffer()
        header.writeInteger(UInt32(17))
        #expect(throws: WireProtocolError.frameTooLarge(length: 17, limit: 16)) { try channel.writeInbound(header) }
        _ = try? channel.finish()
    }

    @Test("garbage that happens to be a small length is just an odd frame; a huge one is refused")
    func garbage() throws {
        let channel = EmbeddedChannel(handler: ByteToMessageHandler(WireFrameDecoder()))
        #expect(throws: WireProtocolError.self) { try channel.writeInbound(ByteBuffer(string: "GET / HTTP/1.1\r\n")) }
        _ = try? channel.finish()
    }

    @Test("a frame begun and never finished fails the channel after the stall timeout")
    func stall() throws {
        let loop = EmbeddedEventLoop()
        let channel = EmbeddedChannel(
            handler: ByteToMessageHandler(WireFrameDecoder(stallTimeout: .seconds(2))), loop: loop)
        try channel.writeInbound(frame("complete"))
        #expect(try channel.readInbound(as: ByteBuffer.self) == ByteBuffer(string: "complete"))
        loop.advanceTime(by: .seconds(5))
        #expect(throws: Never.self) { try channel.throwIfErrorCaught() }
        try channel.writeInbound(frame("partial").getSlice(at: 0, length: 6)!)
        loop.advanceTime(by: .seconds(1))
        #expect(throws: Never.self) { try channel.throwIfErrorCaught() }
        loop.advanceTime(by: .seconds(2))
        #expect(throws: WireProtocolError.stalledFrame(timeoutMilliseconds: 2000)) { try channel.throwIfErrorCaught() }
        _ = try? channel.finish()
    }

    @Test("the stall timer starts again with each complete frame: a busy connection is not stalled")
    func busyIsNotStalled() throws {
        let loop = EmbeddedEventLoop()
        let channel = EmbeddedChannel(
            handler: ByteToMessageHandler(WireFrameDecoder(stallTimeout: .seconds(2))), loop: loop)
        // Every read completes one frame and ends in the middle of the next, a second after the
        // one before: for ten seconds, far past the timeout, a frame is always pending.
        var stream = ByteBuffer()
        for index in 0..<10 { stream.writeImmutableBuffer(frame("frame \(index)")) }
        var cuts = [0] + (0..<10).map { 11 * $0 + 5 }
        cuts.append(stream.readableBytes)
        var received: [String] = []
        for (start, end) in zip(cuts, cuts.dropFirst()) {
            loop.advanceTime(by: .seconds(1))
            try channel.throwIfErrorCaught()
            try channel.writeInbound(stream.getSlice(at: start, length: end - start)!)
            while let frame = try channel.readInbound(as: ByteBuffer.self) { received.append(String(buffer: frame)) }
        }
        #expect(received == (0..<10).map { "frame \($0)" })
        #expect(throws: Never.self) { try channel.throwIfErrorCaught() }
        _ = try? channel.finish()
    }

    @Test("until the peer is proven every frame has the hello's limit; after, the full one")
    func unprovenFrameLimit() throws {
        let proof = WirePeerProof()
        let channel = EmbeddedChannel(
            handler: ByteToMessageHandler(
                WireFrameDecoder(maximumFrameLength: 1024, unprovenFrameLimit: 16, proof: proof)))
        try channel.writeInbound(frame("a hello of 16 b."))
        #expect(try channel.readInbound(as: ByteBuffer.self) == ByteBuffer(string: "a hello of 16 b."))
        // The proof's frame, the second, is held to the same limit.
        #expect(throws: WireProtocolError.frameTooLarge(length: 17, limit: 16)) {
            try channel.writeInbound(frame("a proof of 17 b.."))
        }
        _ = try? channel.finish()

        let provenChannel = EmbeddedChannel(
            handler: ByteToMessageHandler(
                WireFrameDecoder(maximumFrameLength: 1024, unprovenFrameLimit: 16, proof: proof)))
        proof.isProven = true
        try provenChannel.writeInbound(frame(String(repeating: "x", count: 1000)))
        #expect(try provenChannel.readInbound(as: ByteBuffer.self)?.readableBytes == 1000)
        _ = try? provenChannel.finish()
    }

    @Test("the encoder writes the big-endian length, then the payload")
    func encoder() throws {
        let channel = EmbeddedChannel(handler: MessageToByteHandler(WireFrameEncoder()))
        try channel.writeOutbound(ByteBuffer(string: "abc"))
        var written = try #require(try channel.readOutbound(as: ByteBuffer.self))
        #expect(written.readInteger(as: UInt32.self) == 3)
        #expect(written.readString(length: 3) == "abc")
        _ = try channel.finish()
    }
}

private func + (lhs: ByteBuffer, rhs: ByteBuffer) -> ByteBuffer {
    var result = lhs
    result.writeImmutableBuffer(rhs)
    return result
}
