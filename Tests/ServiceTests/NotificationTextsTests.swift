import Testing

@testable import Notifications

/// How a notification's text is written from its template and arguments.
@Suite("Notification texts")
struct NotificationTextsTests {
    @Test("each {i} becomes its argument once, in any script; what is not a placeholder of an argument stays")
    func fill() {
        for (template, args, text) in [
            ("New order #{0}", ["7"], "New order #7"),
            ("{2} boxes to {1}", ["7", "Herzl 12", "3"], "3 boxes to Herzl 12"),
            ("{0}{0}", ["{1}", "x"], "{1}{1}"),
            ("משלוח חדש #{0}", ["7"], "משלוח חדש #7"),
            ("{3} {x} { {0", ["a"], "{3} {x} { {0"),
            ("{0}", [], "{0}"),
            ("", ["a"], ""),
            ("ends with {", ["a"], "ends with {"),
        ] {
            #expect(NotificationTexts.fill(template, with: args) == text, "\(template)")
        }
        #expect(
            NotificationTexts.render("order.new_delivery.title", ["7"], locale: "ar-EG") == "توصيل جديد #7")
    }
}
