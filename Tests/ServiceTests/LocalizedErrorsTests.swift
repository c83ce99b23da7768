import Foundation
import TestSupport
import Testing

/// Every error in the caller's language: chosen by `Accept-Language`, else by the locale of the
/// signed-in user, else English; the code and reason the same in each.
@Suite("Errors in the caller's language")
struct LocalizedErrorsTests {
    let api: API

    init() throws { api = try API() }

    @Test("a 400 and a 401 in Hebrew and in Arabic, by Accept-Language or the user's locale; code and reason unchanged")
    func languages() async throws {
        try await InProcessSuite.with { suite in
            let signed = try await api.send(
                suite, "POST", "/v1/auth/register",
                json: ["email": "dana@example.com", "password": "password-123", "name": "Dana Levi", "locale": "ar-EG"])
            let token = try #require(signed.object["access_token"] as? String, "\(signed.text)")
            let bad: [String: Any] = ["street": "", "building_no": String(repeating: "9", count: 300)]

            // The user's locale, with no Accept-Language.
            let arabic = try await api.send(suite, "POST", "/v1/me/addresses", token: token, json: bad)
            #expect(arabic.status == 400 && arabic.headers["content-language"] == "ar", "\(arabic.text)")
            #expect(arabic.error["code"] as? String == "invalid_argument")
            #expect(arabic.error["message"] as? String == "بعض ما أُرسل غير صالح.")
            let arabicFields = arabic.error["details"] as? [String: String] ?? [:]
            #expect(arabicFields["street"] == "يجب ألا يكون فارغًا", "\(arabic.text)")
            #expect(
                arabicFields["building_no"] == "يجب ألا يتجاوز 20 حرفًا"
                    || arabicFields["building_no"]?.contains("يجب") == true)

            // Accept-Language comes first, q-values honoured.
            let hebrew = try await api.send(
                suite, "POST", "/v1/me/addresses", token: token, json: bad,
                headers: ["Accept-Language": "fr-FR, he;q=0.9, ar;q=0.5"])
            #expect(hebrew.headers["content-language"] == "he" && hebrew.error["code"] as? String == "invalid_argument")
            #expect(hebrew.error["message"] as? String == "חלק ממה שנשלח אינו תקין.")
            #expect((hebrew.error["details"] as? [String: String])?["street"] == "אסור שיהיה ריק")
            #expect(Set((hebrew.error["details"] as? [String: Any] ?? [:]).keys) == Set(arabicFields.keys))

            // English: the error's own words.
            let english = try await api.send(
                suite, "POST", "/v1/me/addresses", token: token, json: bad, headers: ["Accept-Language": "en-GB"])
            #expect(english.headers["content-language"] == "en")
            #expect((english.error["details"] as? [String: String])?["street"] == "must not be empty")

            // A stranger's wrong password, in Hebrew: the reason is the same.
            let refused = try await api.send(
                suite, "POST", "/v1/auth/login", json: ["email": "dana@example.com", "password": "wrong-password"],
                headers: ["Accept-Language": "he-IL"])
            #expect(refused.status == 401 && refused.error["reason"] as? String == "invalid_credentials")
            #expect(refused.error["message"] as? String == "כתובת דוא״ל או סיסמה שגויות.")
            #expect(refused.headers["content-language"] == "he")
            let nobody = try await api.send(suite, "GET", "/v1/me", headers: ["Accept-Language": "ar"])
            #expect(nobody.status == 401 && nobody.error["message"] as? String == "سجّل الدخول أولًا.", "\(nobody.text)")
        }
    }
}
