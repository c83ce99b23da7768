/// A message as the mail outbox keeps it until it is sent: rendered, in the recipient's
/// language, in the transaction of the change it tells of.
struct OutgoingMail: Codable, Sendable, Equatable {
    var kind: MailTexts.Kind
    var to: String
    var name: String?
    var subject: String
    var text: String
    var html: String
    /// The link the message carries: what the log shows when no SMTP server is configured.
    var link: String
}
