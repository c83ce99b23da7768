import Domain
import Foundation

/// `LIKE` patterns for what people type into a search box.
public enum SearchPattern {
    /// Matches text that contains `term`, trimmed and lower-cased, with `%`, `_` and `\`
    /// escaped for `ESCAPE '\'`; nil when nothing is left to match. The column searched holds
    /// lower-cased text.
    public static func containing(_ term: String) -> String? {
        let trimmed = term.trimmingWhitespace().lowercased()
        guard !trimmed.isEmpty else { return nil }
        let escaped = trimmed.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%")
            .replacingOccurrences(of: "_", with: "\\_")
        return "%\(escaped)%"
    }
}
