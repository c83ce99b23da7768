import Domain
import Foundation
import WireContract

/// A provider's report as it reached the gateway: the body exactly as sent (the signature
/// covers its bytes) and the `Orderly-Signature` header.
public struct SignedProviderEvent: Codable, Sendable, Hashable {
    public var body: String
    public var signature: String?

    public init(body: String, signature: String?) {
        self.body = body
        self.signature = signature
    }
}
