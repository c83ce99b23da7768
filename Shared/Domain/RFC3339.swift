public import Foundation

/// Times as RFC 3339 text in UTC with milliseconds (`2026-11-22T15:30:00.123Z`), written
/// and read directly: Foundation's ISO 8601 styles cost more than the rest of an event, and
/// read neither every RFC 3339 form nor only those.
public enum RFC3339 {
    public static func format(_ date: Date) -> String {
        let milliseconds = date.millisecondsSince1970
        let (days, dayMilliseconds) = milliseconds.quotientAndRemainder(dividingBy: 86_400_000)
        let (day, time) = dayMilliseconds < 0 ? (days - 1, dayMilliseconds + 86_400_000) : (days, dayMilliseconds)
        let (year, month, dayOfMonth) = civil(fromDays: day)
        func two(_ value: Int64) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let millis = time % 1000
        let fraction = millis < 10 ? "00\(millis)" : millis < 100 ? "0\(millis)" : "\(millis)"
        let yearText = year < 1000 && year >= 0 ? String(String(year + 10000).dropFirst()) : "\(year)"
        return "\(yearText)-\(two(month))-\(two(dayOfMonth))T\(two(time / 3_600_000)):\(two(time / 60_000 % 60)):"
            + "\(two(time / 1000 % 60)).\(fraction)Z"
    }

    /// Reads an RFC 3339 `date-time` (§5.6) as JSON Schema's `date-time` format takes it: `T`
    /// and `Z` upper-case, a fraction of any length (kept to the millisecond), `Z` or an offset
    /// up to ±23:59; no leap second, no year 0, no day its month does not have.
    public static func parse(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        func number(_ range: Range<Int>) -> Int64? {
            guard range.upperBound <= bytes.count else { return nil }
            var value: Int64 = 0
            for index in range {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) else { return nil }
                value = value * 10 + Int64(bytes[index] - UInt8(ascii: "0"))
            }
            return value
        }
        func byte(_ index: Int, _ allowed: String) -> Bool {
            index < bytes.count && allowed.utf8.contains(bytes[index])
        }
        guard byte(4, "-"), byte(7, "-"), byte(10, "T"), byte(13, ":"), byte(16, ":"),
            let year = number(0..<4), let month = number(5..<7), let day = number(8..<10), let hour = number(11..<13),
            let minute = number(14..<16), let second = number(17..<19),
            year > 0, (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year), hour < 24,
            minute < 60, second < 60
        else { return nil }
        var index = 19
        var millis: Int64 = 0
        if byte(index, ".") {
            index += 1
            let start = index
            while byte(index, "0123456789") {
                if index - start < 3 { millis = millis * 10 + Int64(bytes[index] - UInt8(ascii: "0")) }
                index += 1
            }
            guard index > start else { return nil }
            for _ in min(index - start, 3)..<3 { millis *= 10 }
        }
        var offset: Int64 = 0
        if byte(index, "Z") {
            index += 1
        } else if byte(index, "+-"), byte(index + 3, ":"), let hours = number(index + 1..<index + 3),
            let minutes = number(index + 4..<index + 6), hours < 24, minutes < 60
        {
            offset = (hours * 60 + minutes) * (bytes[index] == UInt8(ascii: "-") ? -1 : 1)
            index += 6
        } else {
            return nil
        }
        guard index == bytes.count else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day)
        let total = ((days * 24 + hour) * 60 + minute - offset) * 60 + second
        return Date(millisecondsSince1970: total * 1000 + millis)
    }

    /// The days of `month` in `year` of the proleptic Gregorian calendar.
    static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
    static func daysFromCivil(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The date of a count of days since 1970-01-01.
    static func civil(fromDays days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shifted = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shifted + 2) / 5 + 1
        let month = shifted < 10 ? shifted + 3 : shifted - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}

extension Date {
    /// Whole milliseconds since 1970: how timestamps are stored and sent.
    public var millisecondsSince1970: Int64 { Int64((timeIntervalSince1970 * 1000).rounded()) }

    public init(millisecondsSince1970 value: Int64) { self.init(timeIntervalSince1970: Double(value) / 1000) }

    /// Now, in whole milliseconds.
    public static var nowMilliseconds: Int64 { Date().millisecondsSince1970 }

    /// Now, cut to whole milliseconds, so that it survives storing and sending unchanged.
    public static var currentMillisecond: Date { Date(millisecondsSince1970: nowMilliseconds) }
}

extension RFC3339 {
    /// Writes dates as RFC 3339 UTC with milliseconds.
    public static var encodingStrategy: JSONEncoder.DateEncodingStrategy {
        .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(format(date))
        }
    }

    /// The coders of JSON that is stored or sent between services as text (documents, event
    /// payloads): RFC 3339 dates, keys sorted so that equal values give equal text.
    public static let sortedKeysEncoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = encodingStrategy
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }()

    public static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = decodingStrategy
        return decoder
    }()

    /// Reads RFC 3339 dates; anything else is a decoding error saying what was expected.
    public static var decodingStrategy: JSONDecoder.DateDecodingStrategy {
        .custom { decoder in
            let container = try decoder.singleValueContainer()
            guard let date = parse(try container.decode(String.self)) else {
                throw DecodingError.dataCorruptedError(
                    in: container, debugDescription: "must be an RFC 3339 time such as 2026-11-22T15:30:00Z")
            }
            return date
        }
    }
}
