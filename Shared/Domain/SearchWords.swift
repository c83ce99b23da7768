import Foundation

/// The words a search box matches, folded the same way in what is indexed and in what is
/// typed: so that `Café`, `cafe` and `CAFÉ` meet, Hebrew written with or without niqqud, and
/// Arabic with or without harakat, tatweel or the hamza forms of alef. The databases' own
/// tokenizers would split a word at a vowel mark, so the text reaches them folded.
public enum SearchWords {
    /// The most words a query keeps, and the fewest letters of the last one's prefix.
    public static let maximumQueryWords = 8

    /// The words of `text`, folded: decomposed, without combining marks and tatweel,
    /// lower-cased, `أ إ آ ٱ` as `ا`, `ى` as `ي`, `ة` as `ه`; split at anything not a letter or a
    /// digit.
    public static func words(_ text: String) -> [String] {
        var words: [String] = []
        var word = String.UnicodeScalarView()
        func finish() {
            if !word.isEmpty { words.append(String(word)) }
            word = String.UnicodeScalarView()
        }
        for scalar in text.decomposedStringWithCanonicalMapping.lowercased().unicodeScalars {
            let properties = scalar.properties
            switch properties.generalCategory {
            case .nonspacingMark, .spacingMark, .enclosingMark, .format: continue
            default: break
            }
            if scalar == "\u{0640}" { continue }  // tatweel, which only stretches a line
            guard properties.isAlphabetic || properties.numericType != nil else {
                finish()
                continue
            }
            word.append(Self.folded[scalar] ?? scalar)
        }
        finish()
        return words
    }

    /// The letters written more than one way that a search treats as one. (The alef forms with
    /// a hamza or madda decompose to a bare alef and a mark, which `words` drops.)
    private static let folded: [Unicode.Scalar: Unicode.Scalar] = [
        "\u{0671}": "\u{0627}",  // ٱ alef wasla
        "\u{0649}": "\u{064A}",  // ى alef maksura, as ي
        "\u{0629}": "\u{0647}",  // ة teh marbuta, as ه
    ]

    /// The words of what someone typed, each matched as the beginning of a word (`piz` finds
    /// pizza): the first `maximumQueryWords`; empty when nothing is left to search.
    public static func query(_ text: String) -> [String] {
        Array(words(text).prefix(maximumQueryWords))
    }

    /// The folded words of `texts`, each once, in a line: what is indexed.
    public static func indexed(_ texts: [String?]) -> String {
        var seen = Set<String>()
        var line: [String] = []
        for text in texts.compactMap({ $0 }) {
            for word in words(text) where seen.insert(word).inserted { line.append(word) }
        }
        return line.joined(separator: " ")
    }
}
