public import Domain
internal import Foundation

/// The Redis stream a service's events go to: `orderly:events:<service>`.
public func eventStream(of service: String) -> String { "orderly:events:\(service)" }

/// Where a consumer group's entries go after failing too often: `orderly:dlq:<group>`.
public func deadLetterStream(of group: String) -> String { "orderly:dlq:\(group)" }

/// The stream fields of an event, and back, with every field checked.
enum EventFields {
    static func encode(_ event: DomainEvent) throws -> [(String, [UInt8])] {
        var fields: [(String, [UInt8])] = [
            ("id", Array(event.id.uuidString.lowercased().utf8)),
            ("type", Array(event.type.utf8)),
            ("aggregate_id", Array(event.aggregateID.utf8)),
            ("occurred_at", Array(RFC3339.format(event.occurredAt).utf8)),
            ("payload", Array(try event.payload.jsonText().utf8)),
        ]
        if let store = event.storeID { fields.append(("store_id", Array(store.description.utf8))) }
        if let trace = event.trace { fields.append(("trace", Array(trace.utf8))) }
        return fields
    }

    /// The event in a stream entry, or why it is not one.
    static func decode(_ fields: [String: [UInt8]]) -> Result<DomainEvent, EventDecodingError> {
        func text(_ name: String) -> String? { fields[name].map { String(decoding: $0, as: UTF8.self) } }
        guard let idText = text("id"), let id = UUID(uuidString: idText) else {
            return .failure(.init("id is not a UUID"))
        }
        guard let type = text("type"), !type.isEmpty else { return .failure(.init("type is missing")) }
        guard let aggregate = text("aggregate_id"), !aggregate.isEmpty else {
            return .failure(.init("aggregate_id is missing"))
        }
        guard let occurredText = text("occurred_at"), let occurredAt = RFC3339.parse(occurredText) else {
            return .failure(.init("occurred_at is not an RFC 3339 time"))
        }
        guard let payloadBytes = fields["payload"], let payload = try? JSONValue(parsing: payloadBytes) else {
            return .failure(.init("payload is not JSON"))
        }
        var storeID: StoreID?
        if let storeText = text("store_id") {
            guard let store = StoreID(storeText) else { return .failure(.init("store_id is not a UUID")) }
            storeID = store
        }
        return .success(
            DomainEvent(
                id: id, type: type, storeID: storeID, aggregateID: aggregate, occurredAt: occurredAt, payload: payload,
                trace: text("trace")))
    }
}

/// Why a stream entry is not a valid event.
public struct EventDecodingError: Error, Hashable, Sendable, CustomStringConvertible {
    public var reason: String
    init(_ reason: String) { self.reason = reason }
    public var description: String { "malformed event: \(reason)" }
}

/// Publishes a service's events to its stream.
public struct EventPublisher: Sendable {
    private let redis: RedisClient
    private let stream: String
    private let maximumLength: Int

    /// Events of `service`, trimmed to about `maximumLength` entries.
    public init(redis: RedisClient, service: String, maximumLength: Int = 1_000_000) {
        self.redis = redis
        self.stream = eventStream(of: service)
        self.maximumLength = maximumLength
    }

    /// Appends the event; returns its stream id.
    @discardableResult
    public func publish(_ event: DomainEvent) async throws -> String {
        try await redis.xadd(stream, fields: try EventFields.encode(event), maxLength: maximumLength)
    }

    /// Appends the events in order, in one round trip. When it throws, any prefix of them may
    /// have been appended: publish them all again (consumers drop the repeats by event id).
    public func publish(_ events: [DomainEvent]) async throws {
        let commands = try events.map { event in
            RedisClient.xaddArguments(stream, fields: try EventFields.encode(event), maxLength: maximumLength)
        }
        for reply in try await redis.pipeline(commands) {
            if case .error(let message) = reply { throw RedisError.server(message) }
        }
    }
}

/// Event times as RFC 3339 text in UTC with milliseconds (`2026-11-22T15:30:00.123Z`), written
/// and read directly: Foundation's ISO 8601 styles cost more than the rest of an event.
/// Other RFC 3339 forms (offsets, other precisions) are still read, through Foundation.
enum RFC3339 {
    static func format(_ date: Date) -> String {
        let milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
        let (days, dayMilliseconds) = milliseconds.quotientAndRemainder(dividingBy: 86_400_000)
        let (day, time) = dayMilliseconds < 0 ? (days - 1, dayMilliseconds + 86_400_000) : (days, dayMilliseconds)
        let (year, month, dayOfMonth) = civil(fromDays: day)
        func two(_ value: Int64) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let millis = time % 1000
        let fraction = millis < 10 ? "00\(millis)" : millis < 100 ? "0\(millis)" : "\(millis)"
        return "\(year)-\(two(month))-\(two(dayOfMonth))T\(two(time / 3_600_000)):\(two(time / 60_000 % 60)):"
            + "\(two(time / 1000 % 60)).\(fraction)Z"
    }

    static func parse(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        func number(_ range: Range<Int>) -> Int64? {
            var value: Int64 = 0
            for index in range {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) else { return nil }
                value = value * 10 + Int64(bytes[index] - UInt8(ascii: "0"))
            }
            return value
        }
        if bytes.count == 24, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
            bytes[10] == UInt8(ascii: "T"), bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":"),
            bytes[19] == UInt8(ascii: "."), bytes[23] == UInt8(ascii: "Z"),
            let year = number(0..<4), let month = number(5..<7), let day = number(8..<10), let hour = number(11..<13),
            let minute = number(14..<16), let second = number(17..<19), let millis = number(20..<23),
            (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61
        {
            let days = daysFromCivil(year: year, month: month, day: day)
            let total = ((days * 24 + hour) * 60 + minute) * 60 + second
            return Date(timeIntervalSince1970: Double(total) + Double(millis) / 1000)
        }
        return (try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true)))
            ?? (try? Date(text, strategy: .iso8601))
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
