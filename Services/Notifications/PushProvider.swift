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

    /// Firebase Cloud Messaging, through its HTTP v1 API with a service account's access token.
    static func fcm(_ client: FCMClient) -> PushProvider {
        PushProvider(send: { await client.send($0, to: $1) }, shutdown: { await client.shutdown() })
    }

    /// Browsers' push services (Web Push), each push encrypted for its subscription.
    static func webPush(_ client: WebPushClient) -> PushProvider {
        PushProvider(send: { await client.send($0, to: $1) }, shutdown: {})
    }

    /// Each device through the provider of its platform; a device of a platform none pushes to
    /// (stored while it was configured) is refused, and kept for when it is again.
    static func byPlatform(_ providers: [String: PushProvider]) -> PushProvider {
        PushProvider(
            send: { push, device in
                guard let provider = providers[device.platform] else {
                    return .refused("\(device.platform) is not pushed to by this deployment")
                }
                return await provider.send(push, device)
            },
            shutdown: {
                for provider in providers.values { await provider.shutdown() }
            })
    }
}
