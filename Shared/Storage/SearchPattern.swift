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

    /// The `LIKE` pattern of a phone-like search (digits and `+()-` and spaces, four or more
    /// characters) in a column of phone digits (`digits(_:)`): its digits; nil for any other
    /// search.
    public static func phone(_ term: String) -> String? {
        let trimmed = term.trimmingCharacters(in: .whitespaces)
        let phoneLike = trimmed.unicodeScalars.allSatisfy {
            ("0"..."9").contains($0) || " +()-".unicodeScalars.contains($0)
        }
        guard phoneLike, trimmed.count > 3 else { return nil }
        return containing(digits(trimmed))
    }

    /// The digits of a phone number, as a column a phone-like search matches holds them.
    public static func digits(_ text: String) -> String {
        String(text.unicodeScalars.filter { ("0"..."9").contains($0) }.map(Character.init))
    }
}
