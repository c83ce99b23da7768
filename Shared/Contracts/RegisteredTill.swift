public import Domain

/// A till just registered, with its token: shown this once, and sent by the till as
/// `X-Till-Token` with every PIN sign-in.
public struct RegisteredTill: Codable, Sendable, Hashable {
    public var till: Till
    public var token: String

    public init(till: Till, token: String) {
        self.till = till
        self.token = token
    }

    public func encode(to encoder: any Encoder) throws {
        try till.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(token, forKey: .token)
    }

    public init(from decoder: any Decoder) throws {
        till = try Till(from: decoder)
        token = try decoder.container(keyedBy: CodingKeys.self).decode(String.self, forKey: .token)
    }

    enum CodingKeys: String, CodingKey { case token }
}
