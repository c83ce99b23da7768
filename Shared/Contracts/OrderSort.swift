import Domain
import Foundation
import WireContract

/// How a list of orders is sorted.
public enum OrderSort: String, Codable, Sendable, Hashable, CaseIterable {
    /// Newest first (the default).
    case newest = "-created_at"
    case oldest = "created_at"
    /// Soonest due first; orders without a due date last.
    case dueSoonest = "due_at"
    case dueLatest = "-due_at"
}
