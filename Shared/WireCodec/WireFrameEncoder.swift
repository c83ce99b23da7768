public import NIOCore

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
