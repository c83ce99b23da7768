/// What one audience of an event is told: the keys of its title and body in
/// `NotificationTexts` and their arguments; `type` is the event's unless given.
struct Telling: Sendable {
    var titleKey: String
    var bodyKey: String
    var args: [String]
    var type: String?

    init(_ titleKey: String, _ bodyKey: String, _ args: [String], type: String? = nil) {
        self.titleKey = titleKey
        self.bodyKey = bodyKey
        self.args = args
        self.type = type
    }
}
