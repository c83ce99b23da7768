import Domain
import Foundation
import WireContract

/// A device to register: `platform` (`ios`), its push `token` (hex), the app's `bundle_id`,
/// the push `environment` (`sandbox` or `production`) and the `locale` to write in (the
/// user's when absent).
public struct DeviceDraft: Codable, Sendable, Hashable {
    public var platform: String?
    public var token: String?
    public var bundleID: String?
    public var environment: String?
    public var locale: String?

    public init(platform: String?, token: String?, bundleID: String?, environment: String?, locale: String? = nil) {
        self.platform = platform
        self.token = token
        self.bundleID = bundleID
        self.environment = environment
        self.locale = locale
    }

    enum CodingKeys: String, CodingKey {
        case platform, token, environment, locale
        case bundleID = "bundle_id"
    }
}
