/// How a push's title and body are shortened to what one push carries: the body first, then the
/// title, each cut marked with `…`. A character is a byte or more, so each round drops as many
/// characters as the payload is bytes over (and the mark), and cuts the texts as given, not as
/// cut before.
enum PushTextFit {
    /// `bytes`, the payload `encode` made of `title` and `body`, or one it makes of them
    /// shortened, at most `limit` bytes (or with both texts gone).
    static func fitted(
        _ bytes: [UInt8], title: String, body: String, within limit: Int, encode: (String, String) -> [UInt8]
    ) -> [UInt8] {
        var bytes = bytes
        var (titleKept, bodyKept) = (title.count, body.count)
        func shortened(_ text: String, to count: Int) -> String {
            count < text.count ? String(text.prefix(count)) + "…" : text
        }
        while bytes.count > limit, titleKept + bodyKept > 0 {
            let over = bytes.count - limit + "…".utf8.count
            if bodyKept > 0 { bodyKept = max(0, bodyKept - over) } else { titleKept = max(0, titleKept - over) }
            bytes = encode(shortened(title, to: titleKept), shortened(body, to: bodyKept))
        }
        return bytes
    }
}
