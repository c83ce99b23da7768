import Domain
import Foundation

/// The days a statistics read covers, `YYYY-MM-DD` in the store's time zone, both included. A
/// range of up to `dailyLimit` days is read, and answered, day by day; a longer one (all time,
/// say) is read from the months wholly inside it and the days of the months at its ends, and
/// answered month by month.
struct StatsDays: Sendable {
    var from: String
    var to: String
    /// Every day from `from` to `to`, in order; empty for a range read by month.
    var all: [String]
    /// Every month the range touches, `YYYY-MM`, in order.
    var months: [String]
    /// The times those days may cover in any time zone: from a day before `from` to two days
    /// after `to`, midnight UTC.
    var window: Range<Date>

    /// The most days read one by one.
    static let dailyLimit = 366
    /// The earliest and latest dates a range may name.
    static let earliest = "2000-01-01"
    static let latest = "2099-12-31"

    /// Checks `from` and `to` (400 naming either), between `earliest` and `latest`.
    init(from: String?, to: String?) throws(OrderlyError) {
        var problems = FieldProblems()
        let first = Self.parse(from, "from", &problems)
        let last = Self.parse(to, "to", &problems)
        try problems.check()
        guard let first, let last, first <= last else {
            throw OrderlyError.invalidFields(["to": "must not be before from"])
        }
        self.from = Self.format(first)
        self.to = Self.format(last)
        let count = (Self.calendar.dateComponents([.day], from: first, to: last).day ?? 0) + 1
        var days: [String] = []
        var months: [String] = []
        var day = first
        while day <= last {
            let text = Self.format(day)
            if count <= Self.dailyLimit { days.append(text) }
            if months.last != String(text.prefix(7)) { months.append(String(text.prefix(7))) }
            // A range read by month steps a month at a time, from the first of the next.
            let step: DateComponents = count <= Self.dailyLimit ? DateComponents(day: 1) : DateComponents(month: 1)
            var next = Self.calendar.date(byAdding: step, to: day) ?? last.addingTimeInterval(86_400)
            if count > Self.dailyLimit {
                next = Self.calendar.date(from: Self.calendar.dateComponents([.year, .month], from: next)) ?? next
            }
            day = next
        }
        self.all = days
        self.months = months
        self.window = first.addingTimeInterval(-86_400)..<last.addingTimeInterval(2 * 86_400)
    }

    func contains(_ day: String) -> Bool { day >= from && day <= to }

    /// Whether the range is read, and answered, month by month.
    var byMonth: Bool { all.isEmpty }

    /// For a range read by month: the first and last months wholly inside it (nil when none
    /// is), and the ranges of days at its ends outside them.
    var split: (months: ClosedRange<String>?, days: [ClosedRange<String>]) {
        let first = String(from.prefix(7))
        let last = String(to.prefix(7))
        let startsWhole = from.hasSuffix("-01")
        let endsWhole = to == Self.lastDay(of: last)
        let wholeFirst = startsWhole ? first : months.dropFirst().first
        let wholeLast = endsWhole ? last : months.dropLast().last
        var days: [ClosedRange<String>] = []
        if !startsWhole { days.append(from...Self.lastDay(of: first)) }
        if !endsWhole { days.append((last + "-01")...to) }
        guard let wholeFirst, let wholeLast, wholeFirst <= wholeLast else { return (nil, days) }
        return (wholeFirst...wholeLast, days)
    }

    /// The last day of `month` (`YYYY-MM`).
    static func lastDay(of month: String) -> String {
        guard let start = parseDay(month + "-01"),
            let next = calendar.date(byAdding: DateComponents(month: 1, day: -1), to: start)
        else { return month + "-31" }
        return format(next)
    }

    /// Days are counted on a UTC calendar: each stands for a date, whatever the zone.
    private static let calendar: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar
    }()

    private static func parse(_ text: String?, _ field: String, _ problems: inout FieldProblems) -> Date? {
        guard let text else {
            problems.add(field, "is required")
            return nil
        }
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
            let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]),
            let date = calendar.date(from: DateComponents(year: year, month: month, day: day)),
            format(date) == text
        else {
            problems.add(field, "must be a date such as 2026-11-25")
            return nil
        }
        guard text >= earliest, text <= latest else {
            problems.add(field, "must be from \(earliest) to \(latest)")
            return nil
        }
        return date
    }

    private static func parseDay(_ text: String) -> Date? {
        var problems = FieldProblems()
        return parse(text, "day", &problems)
    }

    private static func format(_ date: Date) -> String {
        let parts = calendar.dateComponents([.year, .month, .day], from: date)
        return String(format: "%04d-%02d-%02d", parts.year!, parts.month!, parts.day!)
    }
}
