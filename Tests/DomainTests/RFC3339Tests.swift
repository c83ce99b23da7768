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

    @Test("reads RFC 3339 date-times as the API document's date-time format takes them (found by make fuzz-api)")
    func readsEveryForm() {
        let base = Date(timeIntervalSince1970: 1_795_361_400)  // 2026-11-22T15:30:00Z
        let same = [
            "2026-11-22T15:30:00Z", "2026-11-22T15:30:00.0Z", "2026-11-22T15:30:00.000000001Z",
            "2026-11-22T16:30:00+01:00", "2026-11-22T15:30:00-00:00", "2026-11-22T11:35:00-03:55",
            "2026-11-23T15:29:00+23:59",
        ]
        for text in same { #expect(RFC3339.parse(text) == base, "\(text)") }
        #expect(RFC3339.parse("9891-08-18T15:14:30.5-19:55") == RFC3339.parse("9891-08-19T11:09:30.500Z"))
        #expect(RFC3339.parse("2024-02-29T00:00:00Z") != nil)
        // Years before 1000 keep four digits on the way out, so that they read back.
        let early = RFC3339.parse("0365-09-09T19:09:55-21:40")!
        #expect(RFC3339.format(early) == "0365-09-10T16:49:55.000Z")
        #expect(RFC3339.parse(RFC3339.format(early)) == early)
        for text in [
            "2026-02-29T00:00:00Z", "2026-04-31T00:00:00Z", "2026-11-22T24:00:00Z", "2026-11-22T15:30:00",
            "2026-11-22T15:30:00.Z", "2026-11-22T15:30:00+24:00", "2026-11-22T15:30:00+0100", "2026-11-22 15:30:00Z",
            "2026-11-22T15:30:00Zx", "2026-11-22t15:30:00z", "2016-12-31T23:59:60Z", "0000-01-01T00:00:00Z",
        ] {
            #expect(RFC3339.parse(text) == nil, "\(text)")
        }
    }
}
