/// One metric a process may export: its Prometheus name, type, labels and help text, and for a
/// histogram its buckets. `MetricDescription.all` lists every one; `docs/OPERATIONS.md` lists
/// the same names, and a metric that is not here is exported without help text, which
/// `promtool check metrics` (in `make test`) reports.
public struct MetricDescription: Sendable, Hashable {
    public enum Kind: String, Sendable {
        case counter, gauge, histogram
    }

    public var name: String
    public var kind: Kind
    public var labels: [String]
    public var help: String
    /// Upper bounds in seconds, for a histogram of durations.
    public var buckets: [Double]

    init(_ name: String, _ kind: Kind, _ labels: [String] = [], _ help: String, buckets: [Double] = []) {
        (self.name, self.kind, self.labels, self.help, self.buckets) = (name, kind, labels, help, buckets)
    }

    /// A request's or a call's time: from half a millisecond to ten seconds.
    public static let requestBuckets = [
        0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
    ]
    /// How long a long-poll or an event stream was held: a tenth of a second to an hour.
    public static let heldBuckets = [0.1, 0.5, 1, 5, 10, 30, 60, 300, 900, 1800, 3600]

    /// Every metric of every process, by name.
    public static let all: [String: MetricDescription] = Dictionary(
        uniqueKeysWithValues: list.map { ($0.name, $0) })

    private static let list: [MetricDescription] = [
        // The gateway's HTTP requests.
        .init(
            "http_server_requests_total", .counter, ["route", "method", "status"],
            "HTTP requests answered, by route pattern (unmatched for none), method and status as answered"),
        .init(
            "http_server_request_duration_seconds", .histogram, ["route", "method", "status"],
            "Time from a request's arrival to its response's last byte, long-polls and event streams apart",
            buckets: requestBuckets),
        .init(
            "http_server_held_request_duration_seconds", .histogram, ["route", "kind"],
            "How long a long-poll (kind long_poll) or an event stream (kind stream) was held",
            buckets: heldBuckets),
        .init("http_server_active_requests", .gauge, [], "HTTP requests in progress, long-polls and streams included"),
        .init("orderly_gateway_long_polls_waiting", .gauge, [], "Long-polls waiting for a wake-up"),
        .init("orderly_gateway_streams_open", .gauge, [], "Event streams open"),
        // Wire, both ends.
        .init(
            "orderly_wire_client_calls_total", .counter, ["service", "method", "outcome"],
            "Wire calls made, by the service called, method and outcome (ok or the error's code)"),
        .init(
            "orderly_wire_client_call_duration_seconds", .histogram, ["service", "method", "outcome"],
            "Time a Wire call took, retries included", buckets: requestBuckets),
        .init(
            "orderly_wire_client_retries_total", .counter, ["service"],
            "Wire calls sent again after a connection failed or a server was draining"),
        .init(
            "orderly_wire_client_ejections_total", .counter, ["service"],
            "Connections taken out of a Wire client's pool after failing"),
        .init(
            "orderly_wire_server_requests_total", .counter, ["method", "outcome"],
            "Wire requests answered, by method and outcome (ok or the error's code)"),
        .init(
            "orderly_wire_server_request_duration_seconds", .histogram, ["method"],
            "Time a Wire request took its handler", buckets: requestBuckets),
        // Storage.
        .init(
            "orderly_db_transaction_duration_seconds", .histogram, ["database", "outcome"],
            "Time a write transaction took from its start to its durable commit (committed) or rollback",
            buckets: requestBuckets),
        .init(
            "orderly_db_group_commit_duration_seconds", .histogram, [],
            "Time one SQLite group commit took to make its transactions durable (the fsync)",
            buckets: requestBuckets),
        .init(
            "orderly_db_group_commit_transactions_total", .counter, [],
            "Transactions made durable by SQLite group commits (over their count: transactions per fsync)"),
        .init("orderly_db_group_commits_total", .counter, [], "SQLite group commits (fsyncs)"),
        // The event pipeline.
        .init("orderly_outbox_backlog", .gauge, [], "Events committed to the outbox and not yet published"),
        .init(
            "orderly_outbox_oldest_unsent_age_seconds", .gauge, [],
            "Age of the oldest event in the outbox not yet published (0 when none)"),
        .init("orderly_outbox_published_total", .counter, [], "Events the outbox relay published to Redis"),
        .init(
            "orderly_outbox_publish_failures_total", .counter, [],
            "Outbox relay batches that failed to publish (retried)"),
        .init(
            "orderly_events_handled_total", .counter, ["group", "outcome"],
            "Events a consumer group of this process handled: applied, skipped (not its type), dead_lettered or failed (left pending to retry)"
        ),
        .init(
            "orderly_stream_group_lag", .gauge, ["stream", "group"],
            "Entries of a stream a consumer group has not yet read (Redis XINFO GROUPS lag)"),
        .init(
            "orderly_stream_group_pending", .gauge, ["stream", "group"],
            "Entries a consumer group read and has not yet acknowledged"),
        .init(
            "orderly_dead_letters", .gauge, ["group"],
            "Entries in a consumer group's dead-letter stream (orderly:dlq:<group>)"),
        // Webhooks and pushes.
        .init(
            "orderly_webhook_deliveries_total", .counter, ["outcome"],
            "Webhook delivery attempts: delivered, failed (to be retried) or given_up"),
        .init(
            "orderly_webhook_delivery_duration_seconds", .histogram, ["outcome"],
            "Time a webhook delivery attempt took", buckets: requestBuckets),
        .init(
            "orderly_push_sends_total", .counter, ["outcome"],
            "Pushes to devices: delivered, token_invalid, refused, given_up or dropped (too many waiting)"),
        .init(
            "orderly_push_send_duration_seconds", .histogram, ["outcome"],
            "Time one push to a push service (Apple's, a browser's) took, by outcome (retry: it could not take it then)",
            buckets: requestBuckets),
        // The gateway's mail.
        .init(
            "orderly_mail_sends_total", .counter, ["kind", "outcome"],
            "Attempts to hand a message to the SMTP server (or, with none configured, to the log): sent, failed (to be retried) or dead"
        ),
        .init("orderly_mail_queued", .gauge, [], "Messages in the mail outbox waiting to be sent"),
        .init(
            "orderly_mail_oldest_queued_age_seconds", .gauge, [],
            "Age of the oldest message in the mail outbox not yet sent (0 when none)"),
        .init("orderly_mail_dead_letters", .gauge, [], "Messages the mail sender gave up on, kept 30 days"),
        // The process, read from /proc when scraped.
        .init(
            "orderly_build_info", .gauge, ["version", "revision"],
            "Always 1: the release and the commit the process was built from"),
        .init(
            "orderly_certificate_expiry_timestamp_seconds", .gauge, ["certificate"],
            "When a certificate the process uses stops being valid (wire, wire_authority, database_authority), in seconds since the Unix epoch"
        ),
        .init(
            "orderly_dependency_up", .gauge, ["dependency"],
            "Whether the process reached its database and Redis at the last scrape (1) or not (0)"),
        .init("process_cpu_seconds_total", .counter, [], "User and system CPU time spent, in seconds"),
        .init("process_resident_memory_bytes", .gauge, [], "Resident memory size in bytes"),
        .init("process_virtual_memory_bytes", .gauge, [], "Virtual memory size in bytes"),
        .init("process_open_fds", .gauge, [], "Open file descriptors"),
        .init("process_max_fds", .gauge, [], "The most file descriptors the process may open"),
        .init("process_start_time_seconds", .gauge, [], "Start time of the process since the Unix epoch, in seconds"),
    ]
}
