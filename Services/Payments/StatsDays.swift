import Domain
import Foundation

/// The days a statistics read covers, `YYYY-MM-DD` in the store's time zone, both included.
struct StatsDays: Sendable {
    var from: String
    var to: String
    /// Every day from `from` to `to`, in order.
    var all: [String]
    /// The times those days may cover in any time zone: from a day before `from` to two days
    /// after `to`, midnight UTC.
    var window: Range<Date>

    /// The most days one read covers.
    static let maximum = 366

    /// Checks `from` and `to` (400 naming either), at most `maximum` days apart.
    init(from: String?, to: String?) throws(OrderlyError) {
        var problems = FieldProblems()
        let first = Self.parse(from, "from", &problems)
        let last = Self.parse(to, "to", &problems)
        try problems.check()
        guard let first, let last, first <= last else {
            throw OrderlyError.invalidFields(["to": "must not be before from"])
        }
        var days: [String] = []
        var day = first
        while day <= last {
            guard days.count < Self.maximum else {
                throw OrderlyError.invalidFields(["to": "must be at most \(Self.maximum) days after from"])
            }
            days.append(Self.format(day))
            guard let next = Self.calendar.date(byAdding: .day, value: 1, to: day) else { break }
            day = next
        }
        guard let firstDay = days.first, let lastDay = days.last else {
            throw OrderlyError.invalidFields(["to": "must not be before from"])
        }
        self.from = firstDay
        self.to = lastDay
        self.all = days
        self.window = first.addingTimeInterval(-86_400)..<last.addingTimeInterval(2 * 86_400)
    }

    func contains(_ day: String) -> Bool { day >= from && day <= to }

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
        return date
    }

    private static func format(_ date: Date) -> String {
        let parts = calendar.dateComponents([.year, .month, .day], from: date)
        return String(format: "%04d-%02d-%02d", parts.year!, parts.month!, parts.day!)
    }
}
