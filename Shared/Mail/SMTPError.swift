/// Why a message was not handed to the SMTP server: a refusal by the server, with its reply, or
/// a failure on the way. `isPermanent` says whether sending it again can help.
public enum SMTPError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The server answered `code` where the conversation needed another answer: a 5xx refusal
    /// is permanent (an unknown recipient, a refused sender), a 4xx one is not (try later).
    case refused(command: String, code: Int, message: String)
    /// The connection could not be made, or broke, or TLS failed.
    case connection(String)
    /// The server said something that is not SMTP, or offers no way to send safely (no
    /// STARTTLS, no AUTH mechanism we speak).
    case unusable(String)
    /// No answer within the time allowed.
    case timedOut(after: Duration)

    /// Whether sending the same message again can never succeed.
    public var isPermanent: Bool {
        switch self {
        case .refused(_, let code, _): code >= 500
        case .unusable: true
        case .connection, .timedOut: false
        }
    }

    public var description: String {
        switch self {
        case .refused(let command, let code, let message): "the server refused \(command): \(code) \(message)"
        case .connection(let reason): "cannot reach the SMTP server: \(reason)"
        case .unusable(let reason): "the SMTP server cannot be used: \(reason)"
        case .timedOut(let after): "the SMTP server did not answer within \(after)"
        }
    }
}
