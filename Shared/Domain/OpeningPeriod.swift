public import Foundation

/// When a store is open, in its own time zone: periods of a weekday from `open` to `close`
/// (`"HH:MM"`). A period whose `close` is not after its `open` runs past midnight into the next
/// day; `"24:00"` closes at midnight.
public struct OpeningPeriod: Hashable, Sendable, Codable {
    public var day: Weekday
    public var open: String
    public var close: String

    public init(day: Weekday, open: String, close: String) {
        self.day = day
        self.open = open
        self.close = close
    }

    /// Minutes after midnight of `"HH:MM"` (`"24:00"` only when `closing`); nil when malformed.
    static func minutes(_ text: String, closing: Bool) -> Int? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, parts.allSatisfy({ $0.count == 2 && $0.allSatisfy { ("0"..."9").contains($0) } }),
            let hours = Int(parts[0]), let minutes = Int(parts[1]), (0...59).contains(minutes)
        else { return nil }
        if closing, hours == 24, minutes == 0 { return 24 * 60 }
        return (0...23).contains(hours) ? hours * 60 + minutes : nil
    }
}

public enum Weekday: String, Hashable, Sendable, Codable, CaseIterable {
    case mon, tue, wed, thu, fri, sat, sun

    /// The day of `Calendar`'s `weekday` component (1 is Sunday).
    init(calendarWeekday: Int) {
        self = [.sun, .mon, .tue, .wed, .thu, .fri, .sat][(calendarWeekday - 1) % 7]
    }

    var previous: Weekday {
        let days = Weekday.allCases
        return days[(days.firstIndex(of: self)! + 6) % 7]
    }
}

extension [OpeningPeriod] {
    /// The most periods a week holds.
    public static let maximumCount = 50

    /// Records a problem for each malformed period: a time not `"HH:MM"`, or one that opens
    /// and closes at the same minute.
    public func validate(into problems: inout FieldProblems, field: String) {
        if count > Self.maximumCount { problems.add(field, "must hold at most \(Self.maximumCount) periods") }
        for (index, period) in enumerated() {
            let name = "\(field)[\(index)]"
            let open = OpeningPeriod.minutes(period.open, closing: false)
            let close = OpeningPeriod.minutes(period.close, closing: true)
            if open == nil { problems.add("\(name).open", "must be a time from 00:00 to 23:59") }
            if close == nil { problems.add("\(name).close", "must be a time from 00:00 to 24:00") }
            if let open, let close, open == close {
                problems.add("\(name).close", "must differ from open")
            }
        }
    }

    /// Whether one of the periods holds `date` in `timeZone`.
    public func isOpen(at date: Date, in timeZone: TimeZone) -> Bool {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let parts = calendar.dateComponents([.weekday, .hour, .minute], from: date)
        let today = Weekday(calendarWeekday: parts.weekday ?? 1)
        let now = (parts.hour ?? 0) * 60 + (parts.minute ?? 0)
        return contains { period in
            guard let open = OpeningPeriod.minutes(period.open, closing: false),
                let close = OpeningPeriod.minutes(period.close, closing: true)
            else { return false }
            if open < close { return period.day == today && open <= now && now < close }
            // Past midnight: the evening of its day and the early hours of the next.
            return (period.day == today && now >= open) || (period.day == today.previous && now < close)
        }
    }
}
