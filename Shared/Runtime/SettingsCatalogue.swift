/// Every setting of every Orderly process, and the variables the scripts and tools read beside
/// them: the one catalogue that `--help` prints, that `SettingsReader` reads from (a key not in it
/// is a problem reported at start), that unknown `ORDERLY_*` variables and flags are checked
/// against, and that docs/CONFIGURATION.md's tables are (a test keeps them equal: edit both).
public struct SettingDescription: Sendable {
    /// Who reads it: every process, one service, or the scripts and tools beside them.
    public enum Scope: String, Sendable, CaseIterable {
        case everyProcess = "Every process"
        case gateway = "The gateway"
        case orders = "The orders service"
        case payments = "The payments service"
        case notifications = "The notifications service"
        case tools = "The scripts and tools"

        /// The service whose own settings these are; nil for every process's and the tools'.
        var service: String? {
            switch self {
            case .gateway: "gateway"
            case .orders: "orders"
            case .payments: "payments"
            case .notifications: "notifications"
            case .everyProcess, .tools: nil
            }
        }
    }

    public var scope: Scope
    /// The environment variables it covers (none for the OpenTelemetry row, whose variables
    /// swift-otel reads).
    public var variables: [String]
    /// Read as a secret: from the environment, or from the file `<variable>_FILE` names.
    public var secret: Bool
    /// The table's first cell, as docs/CONFIGURATION.md shows it.
    public var name: String
    public var defaultValue: String
    public var meaning: String

    init(
        _ scope: Scope, _ variables: [String], secret: Bool = false, name: String, default defaultValue: String,
        meaning: String
    ) {
        (self.scope, self.variables, self.secret, self.name) = (scope, variables, secret, name)
        (self.defaultValue, self.meaning) = (defaultValue, meaning)
    }

    /// The table row docs/CONFIGURATION.md has for it.
    public var markdownRow: String { "| \(name) | \(defaultValue) | \(meaning) |" }
}

public enum SettingsCatalogue {
    /// The settings `service` reads: every process's, then its own (the catalog has none of its
    /// own).
    public static func settings(of service: String) -> [SettingDescription] {
        all.filter { $0.scope == .everyProcess || $0.scope.service == service }
    }

    /// Every variable named, with the `_FILE` form of each secret.
    public static let variables: Set<String> = Set(
        all.flatMap { entry in entry.variables + (entry.secret ? entry.variables.map { $0 + "_FILE" } : []) })

    /// The variables read as secrets.
    public static let secrets: Set<String> = Set(all.filter(\.secret).flatMap(\.variables))

    public static let all: [SettingDescription] = [
        .init(
            .everyProcess, ["ORDERLY_INTERNAL_SECRET"], secret: true, name: #"`ORDERLY_INTERNAL_SECRET` (secret)"#,
            default: #"none (required without `ORDERLY_WIRE_KEYS`; `make run` makes one)"#,
            meaning:
                #"the operator's secret each pair of caller and service derives its Wire key from; 16 bytes or more. Whoever holds it can pass for any service: compose and Kubernetes give no container it, but `ORDERLY_WIRE_KEYS`"#
        ),
        .init(
            .everyProcess, ["ORDERLY_WIRE_KEYS"], secret: true, name: #"`ORDERLY_WIRE_KEYS` (secret)"#,
            default:
                #"none (compose: `ORDERLY_<SERVICE>_WIRE_KEYS` of `.env`; Kubernetes: the service's entry of the Secret `orderly-wire-keys`)"#,
            meaning:
                #"instead of the secret, this process's own pair keys alone, so that a process taken over cannot pass for another service: `orderly wire-keys orders --calls catalog --called-by gateway,payments` prints them, `deploy/local/make-wire-credentials.sh` every service's"#
        ),
        .init(
            .everyProcess, ["ORDERLY_WIRE_TLS_CERTIFICATE", "ORDERLY_WIRE_TLS_KEY", "ORDERLY_WIRE_TLS_AUTHORITY"],
            name: #"`ORDERLY_WIRE_TLS_CERTIFICATE` / `_KEY` / `_AUTHORITY`"#,
            default: #"none (plain TCP; compose and Kubernetes: `/etc/orderly/wire/tls.crt`, `tls.key`, `ca.crt`)"#,
            meaning:
                #"PEM paths: this process's certificate and key, and the authority that signs every process's; all three turn on mutual TLS 1.3 for every Wire connection it serves and makes. The certificate names the host its callers dial, for `serverAuth` and `clientAuth`"#
        ),
        .init(
            .everyProcess, ["ORDERLY_DATA_DIR"], name: #"`ORDERLY_DATA_DIR`"#,
            default: #"`./.orderly`"#,
            meaning: #"local data: each service's SQLite file"#),
        .init(
            .everyProcess, ["ORDERLY_DATABASE_URL"], secret: true, name: #"`ORDERLY_DATABASE_URL` (secret)"#,
            default: #"`sqlite:<data dir>/<service>.sqlite`"#,
            meaning:
                #"`sqlite:path[?synchronous=normal]` or `postgres://user:password@host:5432/db?sslmode=…&sslrootcert=…&pool=10`. `sslmode`: `disable`, `prefer` (TLS when offered; the default), `require`, `verify-ca` (the certificate's chain alone) or `verify-full`; `sslrootcert`: a PEM file of the authorities to trust instead of the system's (the CA bundle RDS or Cloud SQL publishes). `prefer` and `require` check the chain and the host name as `verify-full` does, which libpq's do not"#
        ),
        .init(
            .everyProcess, ["ORDERLY_REDIS_URL"], secret: true, name: #"`ORDERLY_REDIS_URL` (secret)"#,
            default: #"`redis://127.0.0.1:6379` (`make run`: its own)"#,
            meaning:
                #"`redis://[[user]:password@]host:port[/database]`, or for a Redis Cluster `redis-cluster://[[user]:password@]host:port[,host:port…]` (any of its nodes: the slot map is read from them)"#
        ),
        .init(
            .everyProcess, ["ORDERLY_REDIS_STREAM_SHARDS"], name: #"`ORDERLY_REDIS_STREAM_SHARDS`"#,
            default: #"`1` (at least 2 with a Redis Cluster)"#,
            meaning:
                #"how many streams each service's events are spread over by store (`orderly:events:<service>:{<service>.<n>}`), and wake-ups over as many sharded channels (`SPUBLISH`): for a Redis Cluster, so that the streams spread over its masters ([SCALING.md](SCALING.md)). Every process of a deployment must be given the same number, and it is fixed for the deployment's life: changing it moves stores to other streams while their events are in flight"#
        ),
        .init(
            .everyProcess,
            [
                "ORDERLY_ORDERS_ADDRESS", "ORDERLY_CATALOG_ADDRESS", "ORDERLY_PAYMENTS_ADDRESS",
                "ORDERLY_NOTIFICATIONS_ADDRESS",
            ], name: #"`ORDERLY_<SERVICE>_ADDRESS`"#,
            default: #"`127.0.0.1:7201` orders, `:7202` catalog, `:7203` payments, `:7204` notifications"#,
            meaning:
                #"where callers find a service: `host:port[,host:port…]`; a name stands for every address it resolves to, looked up again every 10 s"#
        ),
        .init(
            .everyProcess, ["ORDERLY_WIRE_HOST", "ORDERLY_WIRE_PORT"], name: #"`ORDERLY_WIRE_HOST` / `_PORT`"#,
            default: #"`127.0.0.1` / the service's"#,
            meaning: #"where a service serves Wire"#),
        .init(
            .everyProcess, ["ORDERLY_ADMIN_HOST", "ORDERLY_ADMIN_PORT"], name: #"`ORDERLY_ADMIN_HOST` / `_PORT`"#,
            default: #"`127.0.0.1` / 9200 gateway, 9201–9204 as above"#,
            meaning:
                #"`/healthz`, `/readyz` (503 without its database or, by default, any upstream; Redis down is `degraded`, still 200; `?upstreams=false` leaves the upstreams out, `?upstreams=any` wants one of them), `/metrics`, on this port only (not on the gateway's public one)"#
        ),
        .init(
            .everyProcess, ["ORDERLY_INSTANCE"], name: #"`ORDERLY_INSTANCE`"#,
            default: #"`<host name>-<admin port>`"#,
            meaning:
                #"this replica's name among the service's replicas (its event consumers'), unique without being set"#),
        .init(
            .everyProcess, ["ORDERLY_LOG_LEVEL", "ORDERLY_LOG_FORMAT"], name: #"`ORDERLY_LOG_LEVEL` / `_FORMAT`"#,
            default: #"`info` / `plain`"#,
            meaning: #"`trace` … `critical`; `plain` or `json` lines"#),
        .init(
            .everyProcess, [],
            name: #"`OTEL_EXPORTER_OTLP_ENDPOINT`, `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`, `OTEL_TRACES_EXPORTER`"#,
            default: #"none: no traces"#,
            meaning:
                #"traces over OTLP/HTTP (`http/protobuf`) to that collector (`http://collector:4318`), on when an endpoint is set or the exporter is `otlp`; `OTEL_SDK_DISABLED=true` keeps them off. swift-otel reads the other standard variables: `OTEL_TRACES_SAMPLER` and `_ARG` (`parentbased_traceidratio` with `0.1` keeps a tenth), `OTEL_EXPORTER_OTLP_HEADERS`, `OTEL_SERVICE_NAME` (default `orderly-<service>`), `OTEL_RESOURCE_ATTRIBUTES`, `OTEL_BSP_SCHEDULE_DELAY`"#
        ),
        .init(
            .everyProcess, ["ORDERLY_WIRE_MAX_FRAME_BYTES"], name: #"`ORDERLY_WIRE_MAX_FRAME_BYTES`"#,
            default: #"`4194304`"#,
            meaning: #"the largest Wire frame"#),
        .init(
            .everyProcess, ["ORDERLY_WIRE_MAX_CONNECTIONS"], name: #"`ORDERLY_WIRE_MAX_CONNECTIONS`"#,
            default: #"`1024`"#,
            meaning: #"open Wire connections a service accepts; more are closed at once"#),
        .init(
            .everyProcess, ["ORDERLY_WIRE_MAX_UNPROVEN_CONNECTIONS"], name: #"`ORDERLY_WIRE_MAX_UNPROVEN_CONNECTIONS`"#,
            default: #"`64`"#,
            meaning:
                #"of those, connections whose peer has not yet proved who it is (its hello's proof); more are closed at once. Until proven, a connection's frames are held to 4 KiB, and it is closed when not proven within the stall timeout"#
        ),
        .init(
            .everyProcess, ["ORDERLY_WIRE_STALL_TIMEOUT_MS"], name: #"`ORDERLY_WIRE_STALL_TIMEOUT_MS`"#,
            default: #"`10000`"#,
            meaning: #"time allowed for a proven hello, or to finish a begun frame"#),
        .init(
            .everyProcess, ["ORDERLY_SHUTDOWN_GRACE_SECONDS"], name: #"`ORDERLY_SHUTDOWN_GRACE_SECONDS`"#,
            default: #"`30`"#,
            meaning:
                #"how long SIGTERM waits for requests in flight; 5 s later, whatever has not stopped is cancelled, and 5 s after that the process stops with an error (40 s in all; the manifests' `terminationGracePeriodSeconds` is 45, after a 5 s `preStop`)"#
        ),
        .init(
            .everyProcess, ["ORDERLY_CONFIG_FILE"], name: #"`ORDERLY_CONFIG_FILE`"#,
            default: #"none"#,
            meaning:
                #"a JSON file of settings, below the flags and the environment: keys as the variables' words in camelCase under their first (`{"wire": {"port": 7101}, "http": {"userRequestsPerSecond": 50}}`); no secrets"#
        ),
        .init(
            .gateway, ["ORDERLY_HTTP_HOST", "ORDERLY_HTTP_PORT"], name: #"`ORDERLY_HTTP_HOST` / `_PORT`"#,
            default: #"`127.0.0.1` / `8080`"#,
            meaning: #"the public HTTP API"#),
        .init(
            .gateway, ["ORDERLY_HTTP_MAX_BODY_BYTES"], name: #"`ORDERLY_HTTP_MAX_BODY_BYTES`"#,
            default: #"`1048576`"#,
            meaning: #"larger request bodies get 413"#),
        .init(
            .gateway, ["ORDERLY_HTTP_MAX_CONNECTIONS", "ORDERLY_HTTP_IDLE_TIMEOUT_SECONDS"],
            name: #"`ORDERLY_HTTP_MAX_CONNECTIONS` / `_IDLE_TIMEOUT_SECONDS`"#,
            default: #"`10000` / `75`"#,
            meaning: #"open connections (more are closed at once); how long one may sit without a request"#),
        .init(
            .gateway, ["ORDERLY_HTTP_USER_REQUESTS_PER_SECOND", "ORDERLY_HTTP_USER_BURST"],
            name: #"`ORDERLY_HTTP_USER_REQUESTS_PER_SECOND` / `_USER_BURST`"#,
            default: #"`20` / `100` (`make run`: `0`)"#,
            meaning:
                #"requests per signed-in user and gateway replica: the burst at once, then the rate; over it answers 429 `rate_limited` with `Retry-After`; `0` turns it off (the local suite, whose benchmarks drive one user hard)"#
        ),
        .init(
            .gateway, ["ORDERLY_HTTP_ANONYMOUS_REQUESTS_PER_SECOND", "ORDERLY_HTTP_ANONYMOUS_BURST"],
            name: #"`ORDERLY_HTTP_ANONYMOUS_REQUESTS_PER_SECOND` / `_ANONYMOUS_BURST`"#,
            default: #"`10` / `50` (`make run`: `0`)"#,
            meaning:
                #"requests without a valid access token (logins, refreshes, providers' reports) per client address (an IPv6 client by its /64; behind `ORDERLY_HTTP_TRUSTED_PROXIES`, the address they forward) and gateway replica; over it 429 `rate_limited` with `Retry-After`; raise it for a payment provider that reports from few addresses, `0` turns it off"#
        ),
        .init(
            .gateway, ["ORDERLY_JWT_SECRET"], secret: true, name: #"`ORDERLY_JWT_SECRET` (secret)"#,
            default: #"none (required; `make run` makes one)"#,
            meaning: #"signs access tokens; 32 bytes or more"#),
        .init(
            .gateway, ["ORDERLY_AUTH_ACCESS_TOKEN_SECONDS", "ORDERLY_AUTH_REFRESH_TOKEN_DAYS"],
            name: #"`ORDERLY_AUTH_ACCESS_TOKEN_SECONDS` / `_REFRESH_TOKEN_DAYS`"#,
            default: #"`900` / `30`"#,
            meaning: #"token lifetimes"#),
        .init(
            .gateway, ["ORDERLY_AUTH_TILL_SESSION_HOURS"], name: #"`ORDERLY_AUTH_TILL_SESSION_HOURS`"#,
            default: #"`12`"#,
            meaning: #"the longest a session opened by PIN on a shared till lasts, however often refreshed (1–24)"#),
        .init(
            .gateway, ["ORDERLY_AUTH_BCRYPT_COST"], name: #"`ORDERLY_AUTH_BCRYPT_COST`"#,
            default: #"`12`"#,
            meaning: #"bcrypt cost of stored passwords (4–16)"#),
        .init(
            .gateway, ["ORDERLY_AUTH_LOGIN_ATTEMPTS_PER_ACCOUNT", "ORDERLY_AUTH_LOGIN_ATTEMPTS_PER_ADDRESS"],
            name: #"`ORDERLY_AUTH_LOGIN_ATTEMPTS_PER_ACCOUNT` / `_PER_ADDRESS`"#,
            default: #"`10` / `50`"#,
            meaning:
                #"login attempts per 5 minutes (an IPv6 client by its /64); an account that strikes again within a day waits twice as long each time, up to 64 windows"#
        ),
        .init(
            .gateway, ["ORDERLY_AUTH_PASSWORD_CHANGES_PER_HOUR"], name: #"`ORDERLY_AUTH_PASSWORD_CHANGES_PER_HOUR`"#,
            default: #"`5`"#,
            meaning:
                #"changes of one user's password an hour, whoever makes them (each is a bcrypt hash); over it answers 429 with `Retry-After`. Checking one's current password for a change counts as a login attempt of the account"#
        ),
        .init(
            .gateway, ["ORDERLY_AUTH_SIGN_UPS_PER_ADDRESS_PER_HOUR"],
            name: #"`ORDERLY_AUTH_SIGN_UPS_PER_ADDRESS_PER_HOUR`"#,
            default: #"`20` (`make run`: `1000000`)"#,
            meaning:
                #"customers' sign-ups (`POST /v1/auth/register`) from one client address an hour, and apart from them applications to join (`POST /v1/applications`), every attempt counted (each is an account or application and a bcrypt hash); over it answers 429 with `Retry-After`"#
        ),
        .init(
            .gateway,
            ["ORDERLY_AUTH_PASSWORD_RESETS_PER_ACCOUNT_PER_HOUR", "ORDERLY_AUTH_PASSWORD_RESETS_PER_ADDRESS_PER_HOUR"],
            name: #"`ORDERLY_AUTH_PASSWORD_RESETS_PER_ACCOUNT_PER_HOUR` / `_PER_ADDRESS_PER_HOUR`"#,
            default: #"`3` / `20`"#,
            meaning:
                #"password-reset e-mails to one account an hour (past it nothing more is mailed, and the answer is still 202); requests for them from one client address (past it 429)"#
        ),
        .init(
            .gateway, ["ORDERLY_AUTH_VERIFICATION_MAILS_PER_ACCOUNT_PER_HOUR"],
            name: #"`ORDERLY_AUTH_VERIFICATION_MAILS_PER_ACCOUNT_PER_HOUR`"#,
            default: #"`3`"#,
            meaning:
                #"verification links mailed again to one account (`POST /v1/me/verification`, past it 429) or to one applicant (at a refused sign-in, past it nothing more is mailed) an hour"#
        ),
        .init(
            .gateway, ["ORDERLY_PUBLIC_URL"], name: #"`ORDERLY_PUBLIC_URL`"#,
            default: #"`http://<ORDERLY_HTTP_HOST>:<ORDERLY_HTTP_PORT>`"#,
            meaning:
                #"where the links in e-mails lead: the address users reach the gateway at, `https://orderly.example.com` (no query or fragment)"#
        ),
        .init(
            .gateway, ["ORDERLY_SMTP_URL"], secret: true, name: #"`ORDERLY_SMTP_URL` (secret)"#,
            default: #"none: each message is written to the gateway's log with its link"#,
            meaning:
                #"the SMTP server mail is handed to: `smtp://[user:password@]host[:port]` (STARTTLS, required; port 587 by default) or `smtps://…` (TLS from the first byte; 465); user and password percent-encoded. With a password, from the environment only"#
        ),
        .init(
            .gateway, ["ORDERLY_SMTP_CA_FILE"], name: #"`ORDERLY_SMTP_CA_FILE`"#,
            default: #"none: the system's trusted certificates"#,
            meaning:
                #"a PEM file of the certificates trusted for the SMTP server instead (a relay with a private authority)"#
        ),
        .init(
            .gateway, ["ORDERLY_MAIL_FROM"], name: #"`ORDERLY_MAIL_FROM`"#,
            default: #"`Orderly <no-reply@orderly.local>`"#,
            meaning: #"the sender of every message: `Name <address>` or an address"#),
        .init(
            .gateway, ["ORDERLY_HTTP_TRUSTED_PROXIES"], name: #"`ORDERLY_HTTP_TRUSTED_PROXIES`"#,
            default: #"none"#,
            meaning: #"proxies whose `X-Forwarded-For` names the client: addresses or networks, `10.0.0.0/8,fd00::/8`"#),
        .init(
            .gateway, ["ORDERLY_BOOTSTRAP_ADMIN_EMAIL", "ORDERLY_BOOTSTRAP_ADMIN_PASSWORD"], secret: true,
            name: #"`ORDERLY_BOOTSTRAP_ADMIN_EMAIL` / `_PASSWORD` (secret)"#,
            default:
                #"`admin@orderly.local` / generated and shown once when standard error is a terminal; otherwise none (a warning, no admin: a password printed where logs are kept is anyone's)"#,
            meaning:
                #"the bootstrap admin, made at start whenever no admin's account is active (or, when the address is a deactivated admin's, that account made active again with the password); nobody signs up with the address"#
        ),
        .init(
            .gateway, ["ORDERLY_NOTIFICATIONS_RECHECK_SECONDS"], name: #"`ORDERLY_NOTIFICATIONS_RECHECK_SECONDS`"#,
            default: #"`2`"#,
            meaning: #"how often a waiting long-poll or stream reads again, in case a wake-up was lost"#),
        .init(
            .gateway, ["ORDERLY_NOTIFICATIONS_MAX_WAIT_SECONDS"], name: #"`ORDERLY_NOTIFICATIONS_MAX_WAIT_SECONDS`"#,
            default: #"`30`"#,
            meaning:
                #"the longest a long-poll is held, whatever its `wait` asks (1–30): lower it behind a proxy that cuts requests sooner; `make fuzz-api` runs with 1, so that the long-polls it sends answer at once"#
        ),
        .init(
            .gateway, ["ORDERLY_NOTIFICATIONS_HEARTBEAT_SECONDS"], name: #"`ORDERLY_NOTIFICATIONS_HEARTBEAT_SECONDS`"#,
            default: #"`15`"#,
            meaning: #"how long an event stream stays silent before a `: heartbeat` comment"#),
        .init(
            .orders, ["ORDERLY_ORDER_LINE_HOLD_SECONDS"], name: #"`ORDERLY_ORDER_LINE_HOLD_SECONDS`"#,
            default: #"`900`"#,
            meaning:
                #"how long the stock held for an order's line waits for the catalog to see the line stored (10–86400); once seen, it is held until the order ends. Only the hold of a line never stored (the process stopped between holding and storing, and the stock could not be given back) waits this long; a catalog further behind on the orders' events holds a lapsed line's stock again when it catches up, if the stock is still there, so raise it where Redis may be away longer"#
        ),
        .init(
            .payments, ["ORDERLY_PAYMENT_PROVIDER_SECRETS"], secret: true,
            name: #"`ORDERLY_PAYMENT_PROVIDER_SECRETS` (secret)"#,
            default: #"none (`make run`: `local=` a secret it makes)"#,
            meaning:
                #"the payment providers whose signed reports it accepts: `name=secret[,name=secret…]`, secrets of 16 bytes or more; from the environment only"#
        ),
        .init(
            .payments, ["ORDERLY_PAYMENT_PROVIDER_EVENTS_RETENTION_DAYS"],
            name: #"`ORDERLY_PAYMENT_PROVIDER_EVENTS_RETENTION_DAYS`"#,
            default: #"`90`"#,
            meaning:
                #"how long the ids of the providers' reports are kept, to answer a repeat `duplicate` (a signature holds five minutes, so a report older than that is refused anyway); housekeeping deletes older ones"#
        ),
        .init(
            .payments, ["ORDERLY_LEDGER_HOLD_HOURS"], name: #"`ORDERLY_LEDGER_HOLD_HOURS`"#,
            default: #"`72`"#,
            meaning:
                #"how long what a store or courier earns stays `pending` in their balance before a payout may take it, so that a sale's refunds are usually made before its money leaves (0: available at once)"#
        ),
        .init(
            .notifications, ["ORDERLY_WEBHOOKS_ALLOWED_NETWORKS"], name: #"`ORDERLY_WEBHOOKS_ALLOWED_NETWORKS`"#,
            default: #"none"#,
            meaning:
                #"networks webhooks may be delivered to although they are loopback, private, link-local or metadata addresses (`127.0.0.0/8` to try them locally); every other such destination is refused, checked at the address connected to"#
        ),
        .init(
            .notifications, ["ORDERLY_WEBHOOKS_PLAIN_HTTP"], name: #"`ORDERLY_WEBHOOKS_PLAIN_HTTP`"#,
            default: #"`refused`"#,
            meaning:
                #"`allowed` lets stores register plain `http` endpoints and deliveries go to them (trying webhooks locally); refused, endpoints are `https`, and an `http` one registered before is delivered nothing"#
        ),
        .init(
            .notifications, ["ORDERLY_WEBHOOKS_RETRY_BASE_MILLISECONDS"],
            name: #"`ORDERLY_WEBHOOKS_RETRY_BASE_MILLISECONDS`"#,
            default: #"`5000`"#,
            meaning: #"the first retry's wait; it doubles each time, at most an hour apart, ±50 %"#),
        .init(
            .notifications, ["ORDERLY_WEBHOOKS_GIVE_UP_SECONDS"], name: #"`ORDERLY_WEBHOOKS_GIVE_UP_SECONDS`"#,
            default: #"`86400`"#,
            meaning: #"how long a delivery is retried before it fails and its endpoint is turned off"#),
        .init(
            .notifications, ["ORDERLY_WEBHOOKS_RETENTION_DAYS"], name: #"`ORDERLY_WEBHOOKS_RETENTION_DAYS`"#,
            default: #"`30`"#,
            meaning:
                #"how long webhook deliveries (their bodies, which hold the stores' orders and payments) are kept once delivered or given up on, counted from their creation; housekeeping deletes older ones, and those still being tried stay"#
        ),
        .init(
            .notifications, ["ORDERLY_NOTIFICATIONS_RETENTION_DAYS"], name: #"`ORDERLY_NOTIFICATIONS_RETENTION_DAYS`"#,
            default: #"`90`"#,
            meaning:
                #"how long users' notifications are kept, read or not, the stores' activity, and what the couriers on duty were told (with the spells on duty and read marks that reach only older ones); housekeeping deletes older ones, and a cursor older than them reads on from the oldest kept"#
        ),
        .init(
            .notifications, ["ORDERLY_APNS_KEY", "ORDERLY_APNS_KEY_FILE"], secret: true,
            name: #"`ORDERLY_APNS_KEY` (secret) or `ORDERLY_APNS_KEY_FILE`"#,
            default: #"none (pushes off)"#,
            meaning: #"the `.p8` key of Apple's push service, as PEM text (environment only) or a file's path"#),
        .init(
            .notifications, ["ORDERLY_APNS_KEY_ID", "ORDERLY_APNS_TEAM_ID"],
            name: #"`ORDERLY_APNS_KEY_ID` / `_TEAM_ID`"#,
            default: #"none"#,
            meaning: #"the key's id and the developer team's; with the key, they turn pushes on"#),
        .init(
            .notifications, ["ORDERLY_APNS_PRODUCTION_URL", "ORDERLY_APNS_SANDBOX_URL"],
            name: #"`ORDERLY_APNS_PRODUCTION_URL` / `_SANDBOX_URL`"#,
            default: #"`https://api.push.apple.com` / `https://api.sandbox.push.apple.com`"#,
            meaning: #"where pushes go, by the device's `environment`"#),
        .init(
            .notifications, ["ORDERLY_APNS_TRUST_FILE"], name: #"`ORDERLY_APNS_TRUST_FILE`"#,
            default: #"none"#,
            meaning: #"a PEM file of authorities trusted besides the system's"#),
        .init(
            .notifications, ["ORDERLY_APNS_RETRY_BASE_MILLISECONDS"], name: #"`ORDERLY_APNS_RETRY_BASE_MILLISECONDS`"#,
            default: #"`1000`"#,
            meaning: #"the first retry's wait after a 429, a 5xx or no answer; it doubles, ±50 %, five attempts in all"#
        ),
        .init(
            .notifications, ["ORDERLY_PUSH_BUNDLE_IDS"], name: #"`ORDERLY_PUSH_BUNDLE_IDS`"#,
            default: #"`none`"#,
            meaning:
                #"the bundle ids of the apps whose devices are registered (`com.example.store,com.example.courier`); a device of any other app is refused, and with none listed every device is"#
        ),
        .init(
            .notifications, ["ORDERLY_PUSH_FCM_SERVICE_ACCOUNT", "ORDERLY_PUSH_FCM_SERVICE_ACCOUNT_FILE"], secret: true,
            name: #"`ORDERLY_PUSH_FCM_SERVICE_ACCOUNT` (secret) or `ORDERLY_PUSH_FCM_SERVICE_ACCOUNT_FILE`"#,
            default: #"none (pushes to Android off)"#,
            meaning:
                #"a Firebase service account's JSON key (its text, environment only, or its file's path): its project is sent to, its RS256 assertion exchanged for access tokens at its `token_uri`"#
        ),
        .init(
            .notifications, ["ORDERLY_PUSH_FCM_URL"], name: #"`ORDERLY_PUSH_FCM_URL`"#,
            default: #"`https://fcm.googleapis.com`"#,
            meaning: #"where Firebase Cloud Messaging's HTTP v1 API answers"#),
        .init(
            .notifications, ["ORDERLY_PUSH_FCM_TRUST_FILE"], name: #"`ORDERLY_PUSH_FCM_TRUST_FILE`"#,
            default: #"none"#,
            meaning: #"a PEM file of authorities trusted besides the system's, for Google's certificates"#),
        .init(
            .notifications, ["ORDERLY_PUSH_FCM_RETRY_BASE_MILLISECONDS"],
            name: #"`ORDERLY_PUSH_FCM_RETRY_BASE_MILLISECONDS`"#,
            default: #"`1000`"#,
            meaning:
                #"the first retry's wait after a 429, a 5xx, a refused access token or no answer from FCM; it doubles, ±50 %, five attempts in all"#
        ),
        .init(
            .notifications, ["ORDERLY_PUSH_WEB_VAPID_KEY"], secret: true,
            name: #"`ORDERLY_PUSH_WEB_VAPID_KEY` (secret)"#,
            default: #"none (web push off)"#,
            meaning:
                #"the P-256 private key (PEM) Web Push messages are signed with (VAPID); its public half, logged at start, is the `applicationServerKey` browsers subscribe with"#
        ),
        .init(
            .notifications, ["ORDERLY_PUSH_WEB_SUBJECT"], name: #"`ORDERLY_PUSH_WEB_SUBJECT`"#,
            default: #"none"#,
            meaning:
                #"a `mailto:` or `https:` address browsers' push services may write to about this server; with the key, it turns web push on"#
        ),
        .init(
            .notifications, ["ORDERLY_PUSH_WEB_ALLOWED_NETWORKS"], name: #"`ORDERLY_PUSH_WEB_ALLOWED_NETWORKS`"#,
            default: #"`none`"#,
            meaning:
                #"networks a subscription's endpoint may be in besides public addresses (`127.0.0.0/8`); endpoints at private, loopback, link-local and metadata addresses are otherwise refused, as webhooks' are"#
        ),
        .init(
            .notifications, ["ORDERLY_PUSH_WEB_TRUST_FILE"], name: #"`ORDERLY_PUSH_WEB_TRUST_FILE`"#,
            default: #"none"#,
            meaning: #"a PEM file of authorities trusted besides the system's, for push services' certificates"#),
        .init(
            .notifications, ["ORDERLY_PUSH_WEB_RETRY_BASE_MILLISECONDS"],
            name: #"`ORDERLY_PUSH_WEB_RETRY_BASE_MILLISECONDS`"#,
            default: #"`1000`"#,
            meaning:
                #"the first retry's wait after a 429, a 5xx or no answer from a push service; it doubles, ±50 %, five attempts in all"#
        ),
        .init(
            .tools, ["ORDERLY_BUILD"], name: #"`ORDERLY_BUILD`"#,
            default: #"`debug`"#,
            meaning:
                #"`release` makes `deploy/local/run.sh` (and the benchmarks through it) build and run the release build"#
        ),
        .init(
            .tools, ["ORDERLY_BIN"], name: #"`ORDERLY_BIN`"#,
            default: #"none"#,
            meaning: #"a folder of built executables `run.sh` runs instead of building"#),
        .init(
            .tools, ["ORDERLY_SQLITE_SYNCHRONOUS"], name: #"`ORDERLY_SQLITE_SYNCHRONOUS`"#,
            default: #"none (`full`)"#,
            meaning: #"`normal` runs `run.sh`'s SQLite files with `synchronous=normal`"#),
        .init(
            .tools, ["ORDERLY_POSTGRES_SERVER_URL"], name: #"`ORDERLY_POSTGRES_SERVER_URL`"#,
            default: #"none"#,
            meaning: #"a PostgreSQL server on which `run.sh` gives each service a database of its own"#),
        .init(
            .tools, ["ORDERLY_PROCESSES"], name: #"`ORDERLY_PROCESSES`"#,
            default: #"none"#,
            meaning:
                #"the suite's processes as `name:pid` pairs, which `run.sh` exports for the benchmarks' CPU figures"#),
        .init(
            .tools, ["ORDERLY_CLI"], name: #"`ORDERLY_CLI`"#,
            default: #"`orderly` on the `PATH`, else this checkout's build"#,
            meaning: #"how `make-wire-credentials.sh` runs `orderly`"#),
        .init(
            .tools, ["ORDERLY_GATEWAY_ADMIN_URL"], name: #"`ORDERLY_GATEWAY_ADMIN_URL`"#,
            default: #"`http://127.0.0.1:9200`"#,
            meaning: #"the gateway's admin port, for `orderly pipeline`"#),
        .init(
            .tools, ["ORDERLY_BENCH_SECRET"], name: #"`ORDERLY_BENCH_SECRET`"#,
            default: #"none"#,
            meaning: #"the internal secret `orderly-bench bench-wire` proves itself with"#),
        .init(
            .tools, ["ORDERLY_TEST_POSTGRES_URL"], name: #"`ORDERLY_TEST_POSTGRES_URL`"#,
            default: #"none: the PostgreSQL cases are skipped"#,
            meaning: #"the PostgreSQL server the tests make their databases in; `make test` starts one"#),
        .init(
            .tools, ["ORDERLY_TEST_POSTGRES_CA"], name: #"`ORDERLY_TEST_POSTGRES_CA`"#,
            default: #"none: the TLS test is skipped"#,
            meaning:
                #"the authority of that server's TLS certificate (for the name `localhost`); `make test`'s server has one"#
        ),
        .init(
            .tools, ["ORDERLY_BIN_DIR"], name: #"`ORDERLY_BIN_DIR`"#,
            default: #"beside the test bundle"#,
            meaning: #"where the tests find the service executables"#),
        .init(
            .tools, ["ORDERLY_PG_BIN", "ORDERLY_PG_DIR", "ORDERLY_PG_RUN"],
            name: #"`ORDERLY_PG_BIN`, `ORDERLY_PG_DIR`, `ORDERLY_PG_RUN`"#,
            default: #"none"#,
            meaning: #"the throwaway PostgreSQL cluster of `make test` and the benchmarks"#),
        .init(
            .tools, ["ORDERLY_REVISION"], name: #"`ORDERLY_REVISION`"#,
            default: #"the checkout's commit"#,
            meaning: #"the revision a build reports (`--version`), for a build outside a checkout"#),
        .init(
            .tools, ["ORDERLY_DEMO_CLOCK", "ORDERLY_DEMO_DATA", "ORDERLY_DEMO_LOG", "ORDERLY_DEMO_NOTE"],
            name: #"`ORDERLY_DEMO_CLOCK`, `ORDERLY_DEMO_DATA`, `ORDERLY_DEMO_LOG`, `ORDERLY_DEMO_NOTE`"#,
            default: #"none"#,
            meaning: #"`make demo`'s moved clock, data folder, log and note"#),
        .init(
            .tools, ["ORDERLY_IMAGE"], name: #"`ORDERLY_IMAGE`"#,
            default: #"`orderly:latest`"#,
            meaning: #"the image compose runs"#),
        .init(
            .tools,
            [
                "ORDERLY_GATEWAY_WIRE_KEYS", "ORDERLY_ORDERS_WIRE_KEYS", "ORDERLY_CATALOG_WIRE_KEYS",
                "ORDERLY_PAYMENTS_WIRE_KEYS", "ORDERLY_NOTIFICATIONS_WIRE_KEYS", "ORDERLY_GATEWAY_DB_PASSWORD",
                "ORDERLY_ORDERS_DB_PASSWORD", "ORDERLY_CATALOG_DB_PASSWORD", "ORDERLY_PAYMENTS_DB_PASSWORD",
                "ORDERLY_NOTIFICATIONS_DB_PASSWORD", "ORDERLY_POSTGRES_PASSWORD", "ORDERLY_REDIS_PASSWORD",
                "ORDERLY_WIRE_TLS_DIR", "ORDERLY_GATEWAY_PORT",
            ],
            name:
                #"`ORDERLY_<SERVICE>_WIRE_KEYS`, `ORDERLY_<SERVICE>_DB_PASSWORD`, `ORDERLY_POSTGRES_PASSWORD`, `ORDERLY_REDIS_PASSWORD`, `ORDERLY_WIRE_TLS_DIR`, `ORDERLY_GATEWAY_PORT`"#,
            default: #"none"#,
            meaning:
                #"compose's `.env`: what `docker-compose.yml` puts into each container's settings and PostgreSQL's and Redis's, and the gateway's published port"#
        ),

    ]
}
