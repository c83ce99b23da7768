import Domain
public import Events
import Foundation
import JSON

/// The Redis stream a service's events go to: `orderly:events:<service>`.
public func eventStream(of service: String) -> String { "orderly:events:\(service)" }

/// The streams a service's events are spread over: `orderly:events:<service>` alone for one
/// shard, else `orderly:events:<service>:{<service>.<n>}` for each shard `n`, the hash tag
/// putting each on a slot of its own in a Redis Cluster. A store's events always go to the same
/// one (`streamShard(of:shards:)`), so they stay in order.
public func eventStreams(of service: String, shards: Int) -> [String] {
    shards <= 1 ? [eventStream(of: service)] : (0..<shards).map { eventStream(of: service, shard: $0) }
}

func eventStream(of service: String, shard: Int) -> String { "orderly:events:\(service):{\(service).\(shard)}" }

/// The shard of `event`'s streams: by its store, or by its aggregate when it has no store (a
/// courier's, the platform's), so that an aggregate's events keep their order either way.
public func streamShard(of event: DomainEvent, shards: Int) -> Int {
    guard shards > 1 else { return 0 }
    return shard(of: event.storeID?.description ?? event.aggregateID, shards: shards)
}

/// Which of `shards` `key` falls in: the CRC16 of its text, as a cluster's slots are.
private func shard(of key: String, shards: Int) -> Int {
    Int(RedisClusterClient.crc16(Array(key.utf8)[...])) % shards
}

/// The hash tag of a key (`{orders.3}` of `orderly:events:orders:{orders.3}`), nil when it has none.
func hashTag(of key: String) -> Substring? {
    guard let open = key.firstIndex(of: "{"), let close = key[open...].firstIndex(of: "}"),
        key.index(after: open) < close
    else { return nil }
    return key[open...close]
}

/// The sharded pub/sub channels (`SPUBLISH`, `SSUBSCRIBE`) a channel is spread over, one per
/// shard, each on a slot of its own in a Redis Cluster: `<channel>:{<channel>.<n>}`.
public func shardedChannels(of channel: String, shards: Int) -> [String] {
    (0..<shards).map { "\(channel):{\(channel).\($0)}" }
}

/// The one of `shardedChannels(of:shards:)` that `key`'s messages go to.
public func shardedChannel(of channel: String, for key: String, shards: Int) -> String {
    "\(channel):{\(channel).\(shard(of: key, shards: shards))}"
}

/// Where a consumer group's entries go after failing too often: `orderly:dlq:<group>`.
public func deadLetterStream(of group: String) -> String { "orderly:dlq:\(group)" }

/// Where a consumer group's entries from `stream` go after failing too often: beside the stream,
/// in its slot (`orderly:dlq:<group>:{orders.3}`), for a stream of a shard;
/// `deadLetterStream(of:)` for a service's only stream.
public func deadLetterStream(of group: String, from stream: String) -> String {
    hashTag(of: stream).map { "\(deadLetterStream(of: group)):\($0)" } ?? deadLetterStream(of: group)
}

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
