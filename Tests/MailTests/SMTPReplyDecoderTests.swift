import NIOCore
import NIOEmbedded
import Testing

@testable import Mail

/// How a server's bytes become replies: lines gathered until the last of a multi-line reply,
/// however the bytes are split; anything that is not SMTP refused.
@Suite("SMTP replies")
struct SMTPReplyDecoderTests {
    @Test("a multi-line reply split anywhere is one reply; a bare line feed ends a line too")
    func multiLine() throws {
        let channel = EmbeddedChannel(handler: ByteToMessageHandler(SMTPReplyDecoder()))
        for piece in ["250-mail.example.com gre", "ets you\r\n250-STARTTLS\r", "\n250 AUTH PLAIN LOGIN\n", "220 "] {
            try channel.writeInbound(ByteBuffer(string: piece))
        }
        #expect(
            try channel.readInbound(as: SMTPReply.self)
                == SMTPReply(code: 250, lines: ["mail.example.com greets you", "STARTTLS", "AUTH PLAIN LOGIN"]))
        #expect(try channel.readInbound(as: SMTPReply.self) == nil)
        try channel.writeInbound(ByteBuffer(string: "ready\r\n"))
        #expect(try channel.readInbound(as: SMTPReply.self) == SMTPReply(code: 220, lines: ["ready"]))
    }

    @Test(
        "a line without a code, or longer than a reply line may be, is not SMTP",
        arguments: ["HTTP/1.1 400 Bad Request\r\n", "99 too short\r\n", "5,000 digits without a line end"])
    func notSMTP(_ bytes: String) {
        let sent = bytes.hasPrefix("5,000") ? String(repeating: "2", count: 5000) : bytes
        let channel = EmbeddedChannel(handler: ByteToMessageHandler(SMTPReplyDecoder()))
        #expect(throws: SMTPError.self) { try channel.writeInbound(ByteBuffer(string: sent)) }
    }
}
