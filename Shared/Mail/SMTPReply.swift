import NIOCore

/// One reply of an SMTP server (RFC 5321 §4.2): a three-digit code and its text, one line for
/// each line of a multi-line reply (`250-PIPELINING`, `250 SIZE`), without the code.
public struct SMTPReply: Sendable, Hashable {
    public var code: Int
    public var lines: [String]

    public init(code: Int, lines: [String]) {
        self.code = code
        self.lines = lines
    }

    /// The reply's text on one line, for an error.
    public var text: String { lines.joined(separator: " ") }
}

/// Gathers a server's bytes into replies: lines ending in CRLF, a `-` after the code meaning
/// more lines follow. A line longer than `maximumLine` bytes or without a code is not SMTP.
struct SMTPReplyDecoder: ByteToMessageDecoder {
    typealias InboundOut = SMTPReply

    /// RFC 5321 allows 512 octets for a reply line; a server may be generous.
    static let maximumLine = 4096
    private var lines: [String] = []

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        let view = buffer.readableBytesView
        guard let end = view.firstIndex(of: UInt8(ascii: "\n")) else {
            if buffer.readableBytes > Self.maximumLine { throw SMTPError.unusable("a reply line is too long") }
            return .needMoreData
        }
        // The line without its CRLF (or a bare LF), which is skipped after it.
        let ending = end > view.startIndex && view[end - 1] == UInt8(ascii: "\r") ? 2 : 1
        let length = end - view.startIndex + 1 - ending
        guard length < Self.maximumLine, let line = buffer.readString(length: length) else {
            throw SMTPError.unusable("a reply line is too long")
        }
        buffer.moveReaderIndex(forwardBy: ending)
        let digits = line.prefix(3)
        guard digits.count == 3, digits.allSatisfy(\.isASCII), let code = Int(digits), (200...599).contains(code)
        else { throw SMTPError.unusable("the server's reply \(String(line.prefix(40)).debugDescription) is not SMTP") }
        let separator = line.dropFirst(3).first
        lines.append(String(line.dropFirst(4)))
        if separator == "-" { return .continue }
        context.fireChannelRead(wrapInboundOut(SMTPReply(code: code, lines: lines)))
        lines = []
        return .continue
    }

    mutating func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws
        -> DecodingState
    {
        try decode(context: context, buffer: &buffer)
    }
}
