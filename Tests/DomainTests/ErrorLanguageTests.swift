import Foundation
import Testing

@testable import Domain

/// Errors in the user's language: one catalogue of texts, complete in every language, and the
/// language chosen from what the client accepts.
@Suite("Error languages")
struct ErrorLanguageTests {
    @Test("every code and every declared reason has a sentence in every language")
    func everyCodeAndReason() {
        let keys = ErrorCode.allCases.map(\.rawValue) + ErrorReason.declared.map(\.rawValue)
        for key in keys {
            let texts = ErrorTexts.sentences[key] ?? [:]
            #expect(Set(texts.keys) == Set(ErrorTexts.languages), "\(key): \(texts.keys.sorted())")
            #expect(texts.values.allSatisfy { !$0.isEmpty }, "\(key)")
        }
        #expect(Set(ErrorTexts.sentences.keys) == Set(keys), "no sentence for a code or reason that is not declared")
    }

    @Test("an English message names a role with the article it takes")
    func articles() throws {
        #expect(ErrorTexts.withArticle("accountant") == "an accountant")
        #expect(ErrorTexts.withArticle("courier") == "a courier")
        let accountant = AccessPolicy(Principal(userID: UserID(), role: .accountant, storeID: nil))
        let refused = #expect(throws: OrderlyError.self) {
            try accountant.visibleUsers(store: nil, role: .courier)
        }
        #expect(refused?.message.hasPrefix("an accountant ") == true, "\(refused?.message ?? "")")
    }

    @Test("every field reason's template has Hebrew and Arabic with the same placeholders, and no two are alike")
    func templates() {
        var seen = Set<[String]>()
        for template in FieldReasonTexts.templates {
            let english = template.literals.joined(separator: "{}")
            #expect(seen.insert(template.literals).inserted, "twice: \(english)")
            for language in ["he", "ar"] {
                let text = template.texts[language] ?? ""
                #expect(!text.isEmpty, "\(english) in \(language)")
                for index in 0..<(template.literals.count - 1) {
                    #expect(text.contains("{\(index)}"), "\(english) in \(language) lacks {\(index)}")
                }
            }
        }
    }

    @Test("a reason is translated by its most specific template, what it quotes kept")
    func translation() {
        #expect(FieldReasonTexts.translate("is required", to: "he") == "שדה חובה")
        #expect(
            FieldReasonTexts.translate("must be an integer from 1 to 200", to: "ar")
                == "يجب أن يكون عددًا صحيحًا من 1 إلى 200")
        #expect(
            FieldReasonTexts.translate("must be from -5 to 5, and not 0", to: "he") == "חייב להיות בין ‎-5 ל-5, ולא 0")
        #expect(FieldReasonTexts.translate("must be one of card, cash", to: "he") == "חייב להיות אחד מאלה: card, cash")
        #expect(FieldReasonTexts.translate("must choose 1 of Size, not 2", to: "ar") == "يجب اختيار 1 من Size، لا 2")
        #expect(FieldReasonTexts.translate("is required", to: "en") == nil)
        #expect(FieldReasonTexts.translate("something nobody wrote", to: "he") == nil)
        #expect(FieldReasonTexts.translate("ILS", to: "he") == nil, "data beside fields is left alone")
    }

    @Test("the message of an error is its own in English, its reason's (else its code's) sentence otherwise")
    func messages() {
        let error = OrderlyError(.insufficientStock, "not enough Falafel")
        #expect(ErrorTexts.message(of: error, in: "en") == "not enough Falafel")
        #expect(ErrorTexts.message(of: error, in: "he") == "חלק מהמוצרים אינם במלאי בכמויות האלה.")
        #expect(ErrorTexts.message(of: OrderlyError(.notFound, "no store x"), in: "ar") == "لم يُعثر عليه.")
    }

    @Test("Accept-Language chooses by q-value and language, else the user's locale, else English")
    func negotiation() {
        let supported = ErrorTexts.languages
        func choose(_ header: String?, _ locale: String? = nil) -> String {
            AnswerLanguage.choose(acceptLanguage: header, locale: locale, supported: supported)
        }
        #expect(choose("he-IL") == "he")
        #expect(choose("fr-FR, ar;q=0.5, he;q=0.4") == "ar")
        #expect(choose("en;q=0.2, he;q=0.9") == "he")
        #expect(choose("ar;q=0, he;q=0.1") == "he", "q=0 is refused")
        #expect(choose("iw") == "he")
        #expect(choose("fr, de;q=0.8", "ar-EG") == "ar", "none supported: the user's locale")
        #expect(choose(nil, "he") == "he")
        #expect(choose("*", "fr") == "en")
        #expect(choose("he;q=bad, ar") == "ar", "a malformed q-value drops its tag")
        #expect(choose(nil) == "en")
    }
}
