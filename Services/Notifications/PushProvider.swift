import Contracts
import Domain
import Foundation
import Logging

/// A push service, behind what the sender needs of it: one push to one device.
struct PushProvider: Sendable {
    var send: @Sendable (StoredNotification, Device) async -> PushOutcome
    /// Lets go of connections; called once, when the sender stops.
    var shutdown: @Sendable () async -> Void
}

extension PushProvider {
    /// Apple's push service, through its HTTP/2 API with token-based authentication.
    static func apns(_ settings: APNsSettings, logger: Logger) -> PushProvider {
        let client = APNsClient(settings: settings)
        return PushProvider(send: { await client.send($0, to: $1) }, shutdown: { await client.shutdown() })
    }
}
