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

/// Prefixes each outbound payload with its 4-byte big-endian length.
public struct WireFrameEncoder: MessageToByteEncoder {
    public typealias OutboundIn = ByteBuffer

    private let maximumFrameLength: Int

    public init(maximumFrameLength: Int = WireDefaults.maximumFrameLength) {
        self.maximumFrameLength = maximumFrameLength
    }

    public func encode(data: ByteBuffer, out: inout ByteBuffer) throws {
        guard data.readableBytes <= maximumFrameLength else {
            throw WireProtocolError.frameTooLarge(length: data.readableBytes, limit: maximumFrameLength)
        }
        out.reserveCapacity(4 + data.readableBytes)
        out.writeInteger(UInt32(data.readableBytes))
        out.writeImmutableBuffer(data)
    }
}

/// Whether a connection's peer has proved who it is (its hello's proof accepted): shared by the
/// connection's frame decoder, which holds every frame to the hello's limit until then, and its
/// handler, which says so. Read and written on the connection's event loop only, which is what
/// makes sharing it safe.
public final class WirePeerProof: @unchecked Sendable {
    public var isProven = false

    public init() {}
}

/// Protocol constants shared by servers and clients.
public enum WireDefaults {
    /// The protocol version this build speaks (`v` in every envelope).
    public static let protocolVersion: Int64 = 1
    /// The default largest frame: 4 MiB.
    public static let maximumFrameLength = 4 * 1024 * 1024
    /// The largest frame a server reads before the hello: 4 KiB.
    public static let maximumHelloLength = 4 * 1024
    /// The default cap on a server's open connections.
    public static let maximumConnections = 1024
    /// The default cap on a server's connections whose peer has not proved who it is yet: each
    /// may hold a hello's frame, and none stays past the stall timeout.
    public static let maximumUnprovenConnections = 64
}
