import Domain
import Events
import Foundation
import JSON

/// The Redis stream a service's events go to: `orderly:events:<service>`.
public func eventStream(of service: String) -> String { "orderly:events:\(service)" }

/// Where a consumer group's entries go after failing too often: `orderly:dlq:<group>`.
public func deadLetterStream(of group: String) -> String { "orderly:dlq:\(group)" }

/// The stream fields of an event, and back, with every field checked.
enum EventFields {
    static func encode(_ event: DomainEvent) -> [(String, [UInt8])] {
        var fields: [(String, [UInt8])] = [
            ("id", Array(event.id.lowercasedText.utf8)),
            ("type", Array(event.type.utf8)),
            ("aggregate_id", Array(event.aggregateID.utf8)),
            ("occurred_at", Array(RFC3339.format(event.occurredAt).utf8)),
            ("payload", Array(event.payload.json.utf8)),
        ]
        if let store = event.storeID { fields.append(("store_id", Array(store.description.utf8))) }
        if let trace = event.trace { fields.append(("trace", Array(trace.utf8))) }
        return fields
    }

    /// The event in a stream entry, or why it is not one.
    static func decode(_ fields: [String: [UInt8]]) -> Result<DomainEvent, EventDecodingError> {
        func text(_ name: String) -> String? { fields[name].map { String(decoding: $0, as: UTF8.self) } }
        guard let idText = text("id"), let id = UUID(text: idText) else {
            return .failure(.init("id is not a UUID"))
        }
        guard let type = text("type"), !type.isEmpty else { return .failure(.init("type is missing")) }
        guard let aggregate = text("aggregate_id"), !aggregate.isEmpty else {
            return .failure(.init("aggregate_id is missing"))
        }
        guard let occurredText = text("occurred_at"), let occurredAt = RFC3339.parse(occurredText) else {
            return .failure(.init("occurred_at is not an RFC 3339 time"))
        }
        guard let payloadBytes = fields["payload"], let payload = try? EventPayload(validating: payloadBytes) else {
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
