public import Events
import Redis
public import ServiceLifecycle

/// A service's following of one event stream, another service's or its own: which stream, the
/// event types it applies (the others are acknowledged unread) and what each does. Every
/// follower is run the same way, by `ServiceEnvironment.follow(_:)`, in the following service's
/// consumer group, so that its replicas share the stream and each event is applied by one of
/// them; apply each event's effect once, recording its id in the same transaction
/// (`Database.applyOnce(_:consumer:_:)`), as delivery is at least once.
public protocol EventFollower: Sendable {
    /// The service whose stream it reads (`orderly:events:<producer>`).
    static var producer: String { get }
    /// The event types it applies.
    static var types: [String] { get }
    /// For a cache every replica keeps, a name for a consumer group of each replica's own
    /// (`<service>.<name>.<instance>`), made at the stream's end and removed when the replica
    /// stops; nil (the default) for the service's shared group.
    static var replicaGroup: String? { get }
    /// Whether the events of one read go to `apply(_:)` together (one transaction for all);
    /// by default each is applied alone, events of different aggregates side by side.
    static var appliesBatches: Bool { get }
    /// How long the consumer waits before reading again after a read that brought less than a
    /// full batch (`EventConsumerConfiguration.pause`): for a follower that applies few of the
    /// stream's events and need not apply them at once. Zero (the default) reads again at once.
    static var readPause: Duration { get }

    /// Applies one event.
    func apply(_ event: DomainEvent) async throws
    /// Applies several events in stream order, all or none of them.
    func apply(_ events: [DomainEvent]) async throws
}

extension EventFollower {
    public static var replicaGroup: String? { nil }
    public static var appliesBatches: Bool { false }
    public static var readPause: Duration { .zero }

    public func apply(_ events: [DomainEvent]) async throws {
        for event in events { try await apply(event) }
    }
}

extension ServiceEnvironment {
    /// The consumer that runs `follower` in this process: in the service's group (or the
    /// replica's own), this replica named by its instance, on the database's executor.
    public func follow<Follower: EventFollower>(_ follower: Follower) -> any Service {
        let group = Follower.replicaGroup.map { "\(service).\($0).\(instance)" } ?? service
        let apply: EventConsumer.Handler = { event in try await follower.apply(event) }
        var batch: EventConsumer.BatchHandler?
        if Follower.appliesBatches { batch = { events in try await follower.apply(events) } }
        let handlers = Dictionary(uniqueKeysWithValues: Follower.types.map { ($0, apply) })
        let consumers = eventStreams(of: Follower.producer, shards: redis.configuration.streamShards).map { stream in
            let configuration = EventConsumerConfiguration(
                stream: stream, group: group, consumer: instance, durableGroup: Follower.replicaGroup == nil,
                executor: database.preferredExecutor, pause: Follower.readPause)
            return EventConsumer(
                redis: consumerRedis(), configuration: configuration,
                handlers: handlers, batchHandler: batch, logger: logger)
        }
        return consumers.count == 1 ? consumers[0] : ShardConsumers(consumers: consumers)
    }
}

/// The consumers of each shard's stream of one producer (`RedisConfiguration.streamShards`),
/// run side by side: a store's events are all on one shard, so each consumer keeps their order.
struct ShardConsumers: Service {
    let consumers: [EventConsumer]

    func run() async throws {
        try await withThrowingDiscardingTaskGroup { group in
            for consumer in consumers { group.addTask { try await consumer.run() } }
        }
    }
}
