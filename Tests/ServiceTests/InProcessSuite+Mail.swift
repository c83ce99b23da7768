import Domain
import Foundation
import SQLKit
import Storage
import Testing

@testable import Gateway

/// The mail an in-process suite queued (nothing sends it there), and the links it carries.
extension InProcessSuite {
    /// The messages of `kind` queued for `recipient`, oldest first.
    func mailed(_ kind: MailTexts.Kind, to recipient: String) async throws -> [OutgoingMail] {
        try await gatewayDatabase.read { sql in
            try await sql.raw(
                """
                SELECT doc FROM mail_outbox WHERE kind = \(bind: kind.rawValue) AND recipient = \(bind: recipient)
                ORDER BY created_at, id
                """
            ).all().compactMap { row in
                try row.decode(column: "doc", as: String?.self).map {
                    try StoredDocument.decode(OutgoingMail.self, from: $0)
                }
            }
        }
    }

    /// The token at the end of a mailed link (`…/#/<page>/<token>`).
    static func token(inLink link: String) throws -> String {
        try #require(link.split(separator: "/").last.map(String.init))
    }

    /// Follows the newest verification link mailed to `email`, as its holder would.
    func verifyMailedAddress(_ email: String, api: API) async throws {
        let email = User.normalizedEmail(email)
        let mail = try #require(try await mailed(.emailVerification, to: email).last, "no link mailed to \(email)")
        let reply = try await api.send(
            self, "POST", "/v1/auth/verify-email", json: ["token": try Self.token(inLink: mail.link)])
        try #require(reply.status == 204, "\(reply.text)")
    }
}
