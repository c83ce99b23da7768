public import NIOCore

/// Splits a byte stream into Wire frames: a 4-byte big-endian length `N`, then `N` bytes.
///
/// A length above `maximumFrameLength` fails the stream with `WireProtocolError.frameTooLarge`
/// (the connection handler answers with an error frame and closes); so does a frame above
/// `unprovenFrameLimit` until the peer has proved who it is (`proof`), which a server sets low:
/// before that only the hello's frames come, and a peer that has not proved who it is must not
/// make the server buffer megabytes, in its first frame or any later one. A frame that has begun but is
/// not complete within `stallTimeout` fails it with `WireProtocolError.stalledFrame`, so a peer
/// that sends half a frame and goes quiet cannot hold a connection forever; the timer starts
/// again with each complete frame, so a busy connection whose reads always end mid-frame is
/// never taken for a stalled one.
public struct WireFrameDecoder: ByteToMessageDecoder {
    public typealias InboundOut = ByteBuffer

    private enum ReadState {
        case waitingForHeader
        case waitingForPayload(length: Int)
    }

    private let maximumFrameLength: Int
    private let stallTimeout: TimeAmount?
    /// The limit of every frame until `proof` says the peer proved who it is.
    private let unprovenFrameLimit: Int?
    private let proof: WirePeerProof?
    private var state = ReadState.waitingForHeader
    private var stallTimer: Scheduled<Void>?

    public init(
        maximumFrameLength: Int = WireDefaults.maximumFrameLength, unprovenFrameLimit: Int? = nil,
        proof: WirePeerProof? = nil, stallTimeout: TimeAmount? = .seconds(10)
    ) {
        self.maximumFrameLength = maximumFrameLength
        self.unprovenFrameLimit = unprovenFrameLimit.map { min($0, maximumFrameLength) }
        self.proof = proof
        self.stallTimeout = stallTimeout
    }

    public mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        if case .waitingForHeader = state {
            guard let length = buffer.readInteger(as: UInt32.self) else {
                armStallTimer(context: context, pending: buffer.readableBytes > 0)
                return .needMoreData
            }
            let limit = proof?.isProven == true ? maximumFrameLength : unprovenFrameLimit ?? maximumFrameLength
            guard length <= limit else {
                throw WireProtocolError.frameTooLarge(length: Int(length), limit: limit)
            }
            state = .waitingForPayload(length: Int(length))
        }
        // Read the payload in the same call: a zero-length payload leaves nothing in the buffer
        // that would make the handler call `decode` again.
        guard case .waitingForPayload(let length) = state, let payload = buffer.readSlice(length: length) else {
            armStallTimer(context: context, pending: true)
            return .needMoreData
        }
        state = .waitingForHeader
        // A complete frame is progress: the next one gets a stall timeout of its own.
        stallTimer?.cancel()
        stallTimer = nil
        armStallTimer(context: context, pending: buffer.readableBytes > 0)
        context.fireChannelRead(Self.wrapInboundOut(payload))
        return .continue
    }

    public mutating func decodeLast(
        context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool
    ) throws -> DecodingState {
        let result = try decode(context: context, buffer: &buffer)
        if seenEOF, case .needMoreData = result {
            stallTimer?.cancel()
            stallTimer = nil
        }
        return result
    }

    public mutating func decoderRemoved(context: ChannelHandlerContext) {
        stallTimer?.cancel()
        stallTimer = nil
    }

    /// Starts the stall timer when a partial frame is buffered, stops it when none is.
    private mutating func armStallTimer(context: ChannelHandlerContext, pending: Bool) {
        guard let stallTimeout else { return }
        if !pending {
            stallTimer?.cancel()
            stallTimer = nil
        } else if stallTimer == nil {
            let boundContext = NIOLoopBound(context, eventLoop: context.eventLoop)
            stallTimer = context.eventLoop.scheduleTask(in: stallTimeout) {
                boundContext.value.fireErrorCaught(
                    WireProtocolError.stalledFrame(timeoutMilliseconds: stallTimeout.nanoseconds / 1_000_000))
            }
        }
    }
}
