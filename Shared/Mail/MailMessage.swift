public import Foundation

/// A message to one person: its subject, and its body as plain text and as HTML, both sent (a
/// mail program shows the one it can). Texts are any Unicode; `rendered` encodes them.
public struct MailMessage: Sendable, Hashable {
    public var to: MailAddress
    public var subject: String
    public var text: String
    public var html: String

    public init(to: MailAddress, subject: String, text: String, html: String) {
        self.to = to
        self.subject = subject
        self.text = text
        self.html = html
    }

    /// The message as it travels (RFC 5322, MIME `multipart/alternative`): CRLF line ends,
    /// lines of at most 78 characters (a long header folded), headers in ASCII (a non-ASCII subject or name as RFC 2047 UTF-8 words), each body in
    /// base64 lines of 76 characters, so no line is long and none starts with a dot.
    public func rendered(from sender: MailAddress, id: UUID = UUID(), at date: Date = Date()) -> String {
        let boundary = "=_orderly_\(id.uuidString.lowercased())"
        let domain = sender.address.split(separator: "@").last.map(String.init) ?? "localhost"
        var lines = [
            "From: \(Self.header(sender))",
            "To: \(Self.header(to))",
            "Subject: \(Self.encodedWord(subject))",
            "Date: \(Self.dateHeader(date))",
            "Message-ID: <\(id.uuidString.lowercased())@\(domain)>",
            "MIME-Version: 1.0",
            "Content-Type: multipart/alternative;",
            " boundary=\"\(boundary)\"",
            "",
        ]
        for (type, body) in [("text/plain", text), ("text/html", html)] {
            lines += [
                "--\(boundary)",
                "Content-Type: \(type); charset=utf-8",
                "Content-Transfer-Encoding: base64",
                "",
            ]
            lines += Self.base64Lines(Data(body.utf8))
        }
        lines.append("--\(boundary)--")
        return lines.joined(separator: "\r\n") + "\r\n"
    }

    /// An address as a header shows it, its name quoted or encoded.
    static func header(_ address: MailAddress) -> String {
        guard let name = address.name else { return address.address }
        let plain = name.unicodeScalars.allSatisfy { $0.isASCII && !"\"\\".unicodeScalars.contains($0) }
        return "\(plain ? "\"\(name)\"" : encodedWord(name)) <\(address.address)>"
    }

    /// `text` as a header may carry it: itself when printable ASCII, else RFC 2047 encoded
    /// words of UTF-8 in base64, each at most 75 characters, a character never split.
    static func encodedWord(_ text: String) -> String {
        let flat = text.replacingOccurrences(of: "\r", with: " ").replacingOccurrences(of: "\n", with: " ")
        if flat.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value < 0x7F }), !flat.contains("=?") {
            return flat
        }
        var words: [String] = []
        var chunk = Data()
        for character in flat {
            let bytes = Data(String(character).utf8)
            // 45 bytes make 60 base64 characters: with `=?UTF-8?B?` and `?=`, 72.
            if chunk.count + bytes.count > 45 {
                words.append("=?UTF-8?B?\(chunk.base64EncodedString())?=")
                chunk = Data()
            }
            chunk += bytes
        }
        if !chunk.isEmpty { words.append("=?UTF-8?B?\(chunk.base64EncodedString())?=") }
        return words.joined(separator: "\r\n ")
    }

    static func base64Lines(_ data: Data) -> [String] {
        let encoded = data.base64EncodedString()
        return stride(from: 0, to: encoded.count, by: 76).map { start in
            let from = encoded.index(encoded.startIndex, offsetBy: start)
            return String(
                encoded[from..<(encoded.index(from, offsetBy: 76, limitedBy: encoded.endIndex) ?? encoded.endIndex)])
        }
    }

    /// RFC 5322's date in UTC: `Sun, 06 Dec 2026 10:15:00 +0000`.
    static func dateHeader(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(secondsFromGMT: 0) ?? calendar.timeZone
        let parts = calendar.dateComponents([.weekday, .day, .month, .year, .hour, .minute, .second], from: date)
        let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ value: Int?) -> String { value.map { $0 < 10 ? "0\($0)" : "\($0)" } ?? "00" }
        return "\(days[((parts.weekday ?? 1) - 1) % 7]), \(two(parts.day)) \(months[((parts.month ?? 1) - 1) % 12]) "
            + "\(parts.year ?? 1970) \(two(parts.hour)):\(two(parts.minute)):\(two(parts.second)) +0000"
    }
}
