/// A value's JSON, already written: what a handler answers when it has the text at hand (a
/// document it just stored) and encoding the value again would only repeat the work.
///
/// The Wire router and the idempotency records take the text as it is. Any other encoder gets
/// the value the text holds, and decoding one reads any JSON value, so it stays correct
/// wherever it goes; it is only fast where it is expected.
public struct EncodedJSON: Codable, Hashable, Sendable, CustomStringConvertible {
    /// The JSON, as the encoder that wrote it left it.
    public let text: String

    /// Text that is JSON because an encoder of this process wrote it: not checked again.
    public init(_ text: String) { self.text = text }

    public init(from decoder: any Decoder) throws {
        self.text = try JSONValue(from: decoder).jsonText()
    }

    public func encode(to encoder: any Encoder) throws {
        try JSONValue(parsing: text.utf8).encode(to: encoder)
    }

    public var description: String { text }
}
