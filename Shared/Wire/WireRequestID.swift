/// The id of the client's request a Wire call serves (the gateway's `X-Request-Id`). The gateway
/// sets it for the request's task; every Wire call made within carries it (the envelope's
/// `request_id`), and the service answering sets it again for the calls it makes in turn, so
/// every process's log lines for one request carry the same `request.id`.
public enum WireRequestID {
    @TaskLocal public static var current: String?

    /// An id worth carrying: 1 to 64 letters, digits, `-`, `_` and `.`. Any other is dropped.
    public static func isAcceptable(_ text: String) -> Bool {
        (1...64).contains(text.utf8.count)
            && text.utf8.allSatisfy { byte in
                (48...57).contains(byte) || (65...90).contains(byte) || (97...122).contains(byte)
                    || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ".")
            }
    }
}
