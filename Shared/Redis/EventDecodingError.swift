import Domain
import Events
import Foundation
import JSON

/// Why a stream entry is not a valid event.
public struct EventDecodingError: Error, Hashable, Sendable, CustomStringConvertible {
    public var reason: String
    init(_ reason: String) { self.reason = reason }
    public var description: String { "malformed event: \(reason)" }
}
