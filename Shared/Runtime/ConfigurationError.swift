import Configuration
import Foundation
import SystemPackage

/// The settings a process was started with are unusable; `problems` says why, one per setting.
public struct ConfigurationError: Error, CustomStringConvertible {
    public var problems: [String]

    public var description: String {
        "invalid configuration:\n" + problems.map { "  - \($0)" }.joined(separator: "\n")
    }
}
