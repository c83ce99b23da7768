import Contracts
import Crypto
import Domain
import Foundation
import Runtime
import Storage
import Wire

/// The devices' Wire methods: the caller registers the phone or tablet they are signed in on,
/// and removes it when they sign out.
struct DevicesHandlers: Sendable {
    let devices: DevicesRepository
    /// The apps whose devices are taken, by bundle id (`push.bundleIds`): pushes go to the
    /// operator's apps alone.
    let bundleIDs: Set<String>
    /// The platforms pushed to beside iPhones (`android` with FCM configured, `web` with Web
    /// Push): their devices are taken.
    let pushedTo: Set<String>

    func register(in router: inout WireRouter) {
        router.register(DevicesAPI.register) { draft, context in
            try await register(draft, by: context.requirePrincipal())
        }
        router.register(DevicesAPI.remove) { ref, context in
            try await remove(ref.id, by: context.requirePrincipal())
        }
    }

    /// Registers the caller's device; a token registered by someone else becomes the caller's.
    func register(_ draft: DeviceDraft, by principal: Principal) async throws -> Device {
        let valid = try draft.validated(bundleIDs: bundleIDs, pushedTo: pushedTo)
        // A subscription's key must be a point of the curve, or no push could be encrypted for it.
        if let key = valid.webPush?.p256dh.flatMap(Base64URL.decoded),
            (try? P256.KeyAgreement.PublicKey(x963Representation: key)) == nil
        {
            throw OrderlyError.invalidFields(["keys.p256dh": "is not a point of the P-256 curve"])
        }
        guard AccessPolicy(principal).canManageDevice(of: principal.userID) else {
            throw OrderlyError(.permissionDenied, "devices are registered by their users")
        }
        let now = Date.currentMillisecond
        return try await devices.register(
            Device(
                id: DeviceID(), userID: principal.userID, platform: valid.platform, token: valid.token,
                bundleID: valid.bundleID, environment: valid.environment, keys: valid.webPush, locale: valid.locale,
                createdAt: now, updatedAt: now))
    }

    /// Removes one of the caller's devices; another's is not found.
    func remove(_ id: DeviceID, by principal: Principal) async throws -> Device {
        guard let device = try await devices.find(id), AccessPolicy(principal).canManageDevice(of: device.userID),
            try await devices.remove(id, of: device.userID)
        else { throw OrderlyError(.notFound, "no device \(id)") }
        return device
    }
}
