import Domain
import Foundation
import Mustache

/// What the gateway mails, in each language it writes (a locale is matched by its language,
/// `he-IL` → `he`, else English), laid out by the two templates in `templates/` (HTML, and plain
/// text for clients that show no HTML) around the texts of the `catalogue`.
struct MailTexts: Sendable {
    enum Kind: String, Codable, Sendable, CaseIterable {
        case passwordReset = "password_reset"
        case emailVerification = "email_verification"
    }

    /// Whom a message is to: an account's holder, or an applicant who has none yet.
    struct Recipient: Sendable {
        var email: String
        var name: String
        /// A BCP 47 tag; the language of the message.
        var locale: String
    }

    /// One message's words in one language; `{0}` in the greeting is the recipient's name.
    struct Text: Sendable {
        var subject: String
        var greeting: String
        var paragraphs: [String]
        var action: String
        var codeLabel: String
        var closing: String
    }

    static let languages = ["en", "he", "ar"]
    static let rightToLeft: Set<String> = ["he", "ar"]

    let html: MustacheTemplate
    let text: MustacheTemplate

    /// The templates shipped in the gateway's resources.
    static func bundled() throws -> MailTexts {
        guard let folder = Bundle.module.url(forResource: "templates", withExtension: nil) else {
            throw OrderlyError(.internal, "the mail templates are missing from the gateway's resources")
        }
        func template(_ name: String) throws -> MustacheTemplate {
            try MustacheTemplate(
                string: String(contentsOf: folder.appendingPathComponent("\(name).mustache"), encoding: .utf8))
        }
        return MailTexts(html: try template("mail.html"), text: try template("mail.txt"))
    }

    /// The message of `kind` to `user` in their language, carrying `link` and, for a client that
    /// takes it pasted, `code`.
    func message(_ kind: Kind, to user: Recipient, link: String, code: String) -> OutgoingMail {
        let language = String(user.locale.prefix { $0 != "-" }).lowercased()
        let texts = Self.catalogue[kind] ?? [:]
        let chosen = texts[language] != nil ? language : "en"
        let words =
            texts[chosen]
            ?? Text(subject: kind.rawValue, greeting: "", paragraphs: [], action: "", codeLabel: "", closing: "")
        let values: [String: Any] = [
            "language": chosen, "direction": Self.rightToLeft.contains(chosen) ? "rtl" : "ltr",
            "subject": words.subject, "greeting": words.greeting.replacingOccurrences(of: "{0}", with: user.name),
            "paragraphs": words.paragraphs, "action": words.action, "link": link, "codeLabel": words.codeLabel,
            "code": code, "closing": words.closing,
        ]
        return OutgoingMail(
            kind: kind, to: user.email, name: user.name, subject: words.subject, text: text.render(values),
            html: html.render(values), link: link)
    }

    static let catalogue: [Kind: [String: Text]] = [
        .passwordReset: [
            "en": Text(
                subject: "Choose a new Orderly password",
                greeting: "Hello {0},",
                paragraphs: [
                    "Someone asked to reset the password of your Orderly account. The link below lets you choose a new one; it works once, within 30 minutes.",
                    "Choosing a new password signs you out on every device.",
                ],
                action: "Choose a new password",
                codeLabel: "If your app asks for a code, paste this one:",
                closing: "If it was not you, ignore this message: your password stays as it is."),
            "he": Text(
                subject: "בחירת סיסמה חדשה ל-Orderly",
                greeting: "שלום {0},",
                paragraphs: [
                    "התקבלה בקשה לאפס את הסיסמה של החשבון שלך ב-Orderly. הקישור שלמטה מאפשר לבחור סיסמה חדשה; הוא עובד פעם אחת, במשך 30 דקות.",
                    "בחירת סיסמה חדשה מנתקת אותך בכל המכשירים.",
                ],
                action: "בחירת סיסמה חדשה",
                codeLabel: "אם האפליקציה מבקשת קוד, הדביקו את הקוד הזה:",
                closing: "אם לא ביקשת זאת, אפשר להתעלם מההודעה: הסיסמה שלך נשארת כפי שהיא."),
            "ar": Text(
                subject: "اختر كلمة مرور جديدة لـ Orderly",
                greeting: "مرحبًا {0}،",
                paragraphs: [
                    "طلب أحدهم إعادة تعيين كلمة مرور حسابك في Orderly. يتيح لك الرابط أدناه اختيار كلمة مرور جديدة؛ ويعمل مرة واحدة خلال 30 دقيقة.",
                    "اختيار كلمة مرور جديدة يُخرجك من حسابك على كل الأجهزة.",
                ],
                action: "اختيار كلمة مرور جديدة",
                codeLabel: "إذا طلب التطبيق رمزًا، فالصق هذا الرمز:",
                closing: "إذا لم تكن أنت من طلب ذلك، فتجاهل هذه الرسالة: تبقى كلمة مرورك كما هي."),
        ],
        .emailVerification: [
            "en": Text(
                subject: "Confirm your e-mail address for Orderly",
                greeting: "Hello {0},",
                paragraphs: [
                    "Please confirm that this address is yours by following the link below. It works once, within 48 hours.",
                    "An application to join Orderly is decided only once its address is confirmed.",
                ],
                action: "Confirm my address",
                codeLabel: "If your app asks for a code, paste this one:",
                closing: "If you did not sign up for Orderly, ignore this message: nothing happens without the link."),
            "he": Text(
                subject: "אישור כתובת הדוא״ל שלך ב-Orderly",
                greeting: "שלום {0},",
                paragraphs: [
                    "נא לאשר שהכתובת הזו שלך בלחיצה על הקישור שלמטה. הוא עובד פעם אחת, במשך 48 שעות.",
                    "בקשה להצטרף ל-Orderly נבחנת רק אחרי שהכתובת שלה אושרה.",
                ],
                action: "אישור הכתובת שלי",
                codeLabel: "אם האפליקציה מבקשת קוד, הדביקו את הקוד הזה:",
                closing: "אם לא נרשמת ל-Orderly, אפשר להתעלם מההודעה: בלי הקישור לא קורה דבר."),
            "ar": Text(
                subject: "أكّد عنوان بريدك الإلكتروني في Orderly",
                greeting: "مرحبًا {0}،",
                paragraphs: [
                    "يُرجى تأكيد أن هذا العنوان لك باتباع الرابط أدناه. يعمل مرة واحدة خلال 48 ساعة.",
                    "لا يُبتّ في طلب الانضمام إلى Orderly إلا بعد تأكيد عنوانه.",
                ],
                action: "تأكيد عنواني",
                codeLabel: "إذا طلب التطبيق رمزًا، فالصق هذا الرمز:",
                closing: "إذا لم تسجّل في Orderly، فتجاهل هذه الرسالة: لا يحدث شيء من دون الرابط."),
        ],
    ]
}

extension MailTexts.Recipient {
    /// The user as mail addresses them; nil for a staff member without an address.
    init?(_ user: User) {
        guard let email = user.email else { return nil }
        self.init(email: email, name: user.name, locale: user.locale)
    }
}
