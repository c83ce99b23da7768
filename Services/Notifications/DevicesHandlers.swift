import Contracts
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
        var problems = FieldProblems()
        let platform = problems.required(draft.platform, "platform")
        if let platform, !DevicesAPI.platforms.contains(platform) {
            problems.add("platform", "must be one of " + DevicesAPI.platforms.joined(separator: ", "))
        }
        let token = problems.required(draft.token, "token")
        if let token, !Self.isToken(token) {
            problems.add("token", "must be 16 to 200 hexadecimal digits, an even number")
        }
        let bundle = problems.required(draft.bundleID, "bundle_id")
        if let bundle, !APNsSettings.isBundleID(bundle) {
            problems.add("bundle_id", "must be an app's bundle id: letters, digits, '.', '-', at most 155")
        } else if let bundle, !bundleIDs.contains(bundle) {
            problems.add(
                "bundle_id",
                bundleIDs.isEmpty
                    ? "is of no app this deployment pushes to (the operator lists them in ORDERLY_PUSH_BUNDLE_IDS)"
                    : "must be one of this deployment's apps: " + bundleIDs.sorted().joined(separator: ", "))
        }
        let environment = problems.required(draft.environment, "environment")
        if let environment, !DevicesAPI.environments.contains(environment) {
            problems.add("environment", "must be one of " + DevicesAPI.environments.joined(separator: ", "))
        }
        if let locale = draft.locale { problems.locale(locale) }
        guard let platform, let token, let bundle, let environment, problems.isEmpty else { throw problems.failure }
        guard AccessPolicy(principal).canManageDevice(of: principal.userID) else {
            throw OrderlyError(.permissionDenied, "devices are registered by their users")
        }
        let now = Date.currentMillisecond
        return try await devices.register(
            Device(
                id: DeviceID(), userID: principal.userID, platform: platform, token: token.lowercased(),
                bundleID: bundle, environment: environment, locale: draft.locale, createdAt: now, updatedAt: now))
    }

    /// Removes one of the caller's devices; another's is not found.
    func remove(_ id: DeviceID, by principal: Principal) async throws -> Device {
        guard let device = try await devices.find(id), AccessPolicy(principal).canManageDevice(of: device.userID),
            try await devices.remove(id, of: device.userID)
        else { throw OrderlyError(.notFound, "no device \(id)") }
        return device
    }

    /// A push token as apps send it: ASCII hex, whole bytes.
    static func isToken(_ text: String) -> Bool {
        (16...200).contains(text.utf8.count) && Hex.bytes(text) != nil
    }
}
