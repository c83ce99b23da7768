public import Domain
import Foundation
public import WireContract

/// The phones and tablets that notifications are pushed to: each registered by the user signed
/// in on it, and belonging to that one user until another signs in on it.
public enum DevicesAPI {
    /// Registers the caller's device, or takes it over from whoever had it (the same token).
    public static let register = WireMethod<DeviceDraft, Device>("devices.register", safeToRetry: true)
    /// Forgets one of the caller's devices.
    public static let remove = WireMethod<ResourceRef<DeviceID>, Device>("devices.remove", safeToRetry: true)

    /// The platforms pushed to: Apple's (`ios`), Firebase Cloud Messaging's (`android`) and
    /// browsers' Web Push (`web`).
    public static let platforms = ["ios", "android", "web"]
    /// Apple's two push environments: apps built for development get sandbox tokens.
    public static let environments = ["sandbox", "production"]
}
