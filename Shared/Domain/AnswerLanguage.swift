import Foundation

/// The language an answer is written in: the one the client prefers among those the suite
/// writes, by its `Accept-Language` (q-values honoured; a tag is matched by its language,
/// `he-IL` as `he`, and `iw`, Hebrew's old tag, as `he`), else the signed-in user's `locale`,
/// else the first supported (English).
public enum AnswerLanguage {
    public static func choose(acceptLanguage: String?, locale: String?, supported: [String]) -> String {
        var ranked: [(language: String, q: Double, order: Int)] = []
        for (order, item) in (acceptLanguage ?? "").split(separator: ",").enumerated() {
            let parts = item.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            guard let tag = parts.first, !tag.isEmpty, tag != "*" else { continue }
            var q = 1.0
            for parameter in parts.dropFirst() where parameter.lowercased().hasPrefix("q=") {
                guard let value = Double(parameter.dropFirst(2)), (0...1).contains(value) else { q = -1; break }
                q = value
            }
            guard q > 0, let language = language(of: tag), supported.contains(language) else { continue }
            ranked.append((language, q, order))
        }
        if let best = ranked.min(by: { $0.q != $1.q ? $0.q > $1.q : $0.order < $1.order }) { return best.language }
        if let locale, let language = language(of: locale), supported.contains(language) { return language }
        return supported.first ?? "en"
    }

    /// The primary language subtag of a BCP 47 tag, lower-cased; nil when it is not letters.
    static func language(of tag: String) -> String? {
        let primary = tag.prefix { $0 != "-" && $0 != "_" }.lowercased()
        guard (2...8).contains(primary.count), primary.allSatisfy({ $0.isASCII && $0.isLetter }) else { return nil }
        return primary == "iw" ? "he" : primary
    }
}
