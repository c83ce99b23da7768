import Domain
import Foundation
import Testing

@Suite("Event times")
struct RFC3339Tests {
    @Test("written as Foundation writes them, and read back to the millisecond")
    func agreesWithFoundation() {
        let style = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
        // Times whose milliseconds a Double holds exactly (Foundation truncates the others' binary
        // approximation, 0.999 becoming .998; these it holds exactly).
        for seconds in [0, 951_782_400.5, 1_709_164_800.25, 1_800_000_000.5, 4_102_444_799.75, -86_400.25] {
            let date = Date(timeIntervalSince1970: seconds)
            let text = RFC3339.format(date)
            #expect(text == date.formatted(style), "\(seconds)")
            #expect(RFC3339.parse(text) == Date(timeIntervalSince1970: (seconds * 1000).rounded() / 1000))
        }
        #expect(RFC3339.format(Date(timeIntervalSince1970: 951_782_400.999)) == "2000-02-29T00:00:00.999Z")
        #expect(RFC3339.parse("2026-11-22T16:30:00+01:00") == Date(timeIntervalSince1970: 1_795_361_400))
        #expect(RFC3339.parse("2026-13-22T16:30:00.000Z") == nil)
        #expect(RFC3339.parse("yesterday") == nil)
    }
}
