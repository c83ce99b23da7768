import Domain
import Foundation
import Testing

/// How people's texts are taken: e-mail addresses compared as one however they were typed, and
/// what a reader is shown holding nothing that hides.
@Suite("Texts")
struct TextRulesTests {
    @Test(
        "an e-mail address is NFKC-normalised and case-folded",
        arguments: [
            ("Dana@Example.COM", "dana@example.com"),
            ("ＤＡＮＡ@ｅｘａｍｐｌｅ.com", "dana@example.com"),
            ("STRAẞE@x.de", "strasse@x.de"),
            ("straße@x.de", "strasse@x.de"),
            ("ΣΊΣΥΦΟΣ@x.gr", "σίσυφοσ@x.gr"),
            ("dana@example.com", "dana@example.com"),
        ])
    func emails(typed: String, stored: String) {
        #expect(User.normalizedEmail(typed) == stored)
        #expect(User.normalizedEmail(stored) == stored, "normalising twice changes nothing")
    }

    @Test("names, addresses and notes refuse bidirectional controls and zero-width characters, naming the field")
    func invisibleCharacters() {
        for scalar in FieldProblems.invisible.sorted() {
            var problems = FieldProblems()
            let text = "Dana\(Character(Unicode.Scalar(scalar)!))Levi"
            _ = problems.text(text, "name")
            #expect(problems.reasons.keys.sorted() == ["name"], "U+\(String(scalar, radix: 16))")
            var allowed = FieldProblems()
            _ = allowed.text(text, "emoji", allowingInvisible: true)
            #expect(allowed.isEmpty, "U+\(String(scalar, radix: 16)) where the field allows it")
        }
        var problems = FieldProblems()
        _ = problems.optionalText("שלום Dana, 12 רחוב הרצל 🍕\nקומה 3", "delivery_notes")
        #expect(problems.isEmpty, "Hebrew, Arabic, emoji and line breaks are text: \(problems.reasons)")
    }
}
