import Foundation
import NIOCore
import Testing

@testable import Gateway

@Suite("Forwarded bodies")
struct ForwardedBodyTests {
    @Test(
        "the ETag's version is the object's own top-level integer version, as Foundation reads it",
        arguments: [
            #"{"id":"o1","version":7,"items":[{"version":2}]}"#, #" {"items":{"version":3},"version":12} "#,
            #"{"version":null}"#, #"{"id":"o1"}"#, #"[{"version":1}]"#, #"{"version":"4"}"#, #"{"version":1.5}"#,
            #"{"version":9223372036854775807}"#, "", "{",
        ])
    func version(body: String) {
        struct Versioned: Decodable { var version: Int64? }
        let foundation = (try? JSONDecoder().decode(Versioned.self, from: Data(body.utf8)))?.version
        #expect(JSONBody.topLevelVersion(of: ByteBuffer(string: body)) == foundation)
    }
}
