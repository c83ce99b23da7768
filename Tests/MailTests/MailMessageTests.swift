import Foundation
import Testing

@testable import Mail

/// A message as it travels: headers in ASCII whatever the language, no line a server could
/// take for the end of the message.
@Suite("Mail messages")
struct MailMessageTests {
    @Test("a line that starts with a dot gets a second one, so it never ends the message")
    func dotStuffing() {
        #expect(SMTPClient.dotStuffed(".\r\nfine\r\n.. two\r\n") == "..\r\nfine\r\n... two\r\n")
        #expect(SMTPClient.dotStuffed("no line end") == "no line end\r\n")
    }

    @Test(
        "a subject in Arabic is encoded words of whole characters, each short, and a line break never reaches a header")
    func encodedWords() {
        let subject = String(repeating: "أعد تعيين كلمة المرور ", count: 4)
        let encoded = MailMessage.encodedWord(subject)
        let words = encoded.components(separatedBy: "\r\n ")
        #expect(words.count > 1 && words.allSatisfy { $0.count <= 75 && $0.hasPrefix("=?UTF-8?B?") })
        let decoded = words.compactMap { Data(base64Encoded: String($0.dropFirst(10).dropLast(2))) }
            .map { String(decoding: $0, as: UTF8.self) }.joined()
        #expect(decoded == subject)
        #expect(MailMessage.encodedWord("Hi\r\nBcc: evil@example.com") == "Hi  Bcc: evil@example.com")
        let message = MailMessage(
            to: MailAddress("dana@example.com")!, subject: "Hi\nBcc: evil@example.com", text: "x", html: "y")
        let rendered = message.rendered(from: MailAddress("a@example.com")!)
        #expect(!rendered.components(separatedBy: "\r\n").contains { $0.hasPrefix("Bcc:") })
        #expect(rendered.components(separatedBy: "\r\n").allSatisfy { $0.utf8.count <= 78 })
    }
}
