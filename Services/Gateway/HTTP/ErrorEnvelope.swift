import Domain
import Foundation

/// The JSON of an error answer.
enum ErrorEnvelope {
    private struct Body: Encodable {
        var error: Content
    }

    private struct Content: Encodable {
        var code: String
        var reason: String?
        var message: String
        var details: [String: JSONValue]
        var requestID: String

        enum CodingKeys: String, CodingKey {
            case code, reason, message, details
            case requestID = "request_id"
        }
    }

    static func encode(_ error: OrderlyError, requestID: String) -> Data {
        let body = Body(
            error: Content(
                code: error.code.rawValue, reason: error.reason?.rawValue, message: error.message,
                details: error.details ?? [:],
                requestID: requestID))
        return (try? JSONEncoder().encode(body)) ?? Data(#"{"error":{"code":"internal"}}"#.utf8)
    }
}
