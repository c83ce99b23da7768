public import Logging
public import NIOCore
public import Wire
import WireCodec

/// What every Orderly process reads at start: logging, its Wire listener, its admin port and
/// the internal secret. Read once, validated as a whole.
public struct ProcessSettings: Sendable {
    public var service: String
    public var logLevel: Logger.Level
    public var logFormat: LogFormat
    public var wireHost: String
    public var wirePort: Int
    public var adminHost: String
    public var adminPort: Int
    public var maximumFrameLength: Int
    public var maximumConnections: Int
    /// Of those, the most whose peer has yet to prove who it is.
    public var maximumUnprovenConnections: Int
    public var stallTimeout: TimeAmount
    public var shutdownGracePeriod: TimeAmount
    public var internalSecret: WireSecret
    /// TLS for Wire, served and used, when its three files are configured.
    public var wireTLS: WireTLS?

    /// Reads the settings of `service`, with its default ports.
    ///
    /// | key | variable | default |
    /// |---|---|---|
    /// | `log.level` | `ORDERLY_LOG_LEVEL` | `info` |
    /// | `log.format` | `ORDERLY_LOG_FORMAT` | `plain` |
    /// | `wire.host`, `wire.port` | `ORDERLY_WIRE_HOST`, `ORDERLY_WIRE_PORT` | `127.0.0.1`, per service |
    /// | `admin.host`, `admin.port` | `ORDERLY_ADMIN_HOST`, `ORDERLY_ADMIN_PORT` | `127.0.0.1`, per service |
    /// | `wire.maxFrameBytes` | `ORDERLY_WIRE_MAX_FRAME_BYTES` | 4194304 |
    /// | `wire.maxConnections` | `ORDERLY_WIRE_MAX_CONNECTIONS` | 1024 |
    /// | `wire.maxUnprovenConnections` | `ORDERLY_WIRE_MAX_UNPROVEN_CONNECTIONS` | 64 |
    /// | `wire.stallTimeoutMs` | `ORDERLY_WIRE_STALL_TIMEOUT_MS` | 10000 |
    /// | `shutdown.graceSeconds` | `ORDERLY_SHUTDOWN_GRACE_SECONDS` | 30 |
    /// | `internal.secret` | `ORDERLY_INTERNAL_SECRET` (environment only) | none: required without `wire.keys` |
    /// | `wire.keys` | `ORDERLY_WIRE_KEYS` (environment only) | none: this process's Wire keys alone, in place of the secret |
    /// | `wire.tls.certificate`, `wire.tls.key`, `wire.tls.authority` | `ORDERLY_WIRE_TLS_CERTIFICATE`, `_KEY`, `_AUTHORITY` | none: plain TCP; all three PEM paths turn on mutual TLS |
    public static func read(
        service: String, defaultWirePort: Int, defaultAdminPort: Int, from source: ConfigurationSource
    ) throws(ConfigurationError) -> ProcessSettings {
        var reader = source.settings()
        let logLevel = reader.choice("log.level", default: Logger.Level.info)
        let logFormat = reader.choice("log.format", default: LogFormat.plain)
        let wireHost = reader.string("wire.host", default: "127.0.0.1")
        let wirePort = reader.int("wire.port", default: defaultWirePort, in: 0...65535)
        let adminHost = reader.string("admin.host", default: "127.0.0.1")
        let adminPort = reader.int("admin.port", default: defaultAdminPort, in: 0...65535)
        let frame = reader.int(
            "wire.maxFrameBytes", default: WireDefaults.maximumFrameLength, in: 1024...(256 * 1024 * 1024))
        let connections = reader.int(
            "wire.maxConnections", default: WireDefaults.maximumConnections, in: 1...1_000_000)
        let unproven = reader.int(
            "wire.maxUnprovenConnections", default: WireDefaults.maximumUnprovenConnections, in: 1...1_000_000)
        let stall = reader.int("wire.stallTimeoutMs", default: 10_000, in: 100...600_000)
        let grace = reader.int("shutdown.graceSeconds", default: 30, in: 0...3600)
        var secret: WireSecret?
        if let pairs = reader.optionalSecret("wire.keys") {
            secret = WireSecret(pairs: pairs)
            if secret == nil {
                reader.report("wire.keys", "expected caller>server=<64 hex digits>[,…], as `orderly wire-keys` prints")
            }
        } else if let secretText = reader.secret("internal.secret") {
            if secretText.utf8.count < 16 { reader.report("internal.secret", "must be at least 16 bytes long") }
            secret = WireSecret(secretText)
        }
        let tlsPaths = ["certificate", "key", "authority"].map { reader.optionalString("wire.tls.\($0)") }
        var tls: WireTLS?
        if let certificate = tlsPaths[0], let key = tlsPaths[1], let authority = tlsPaths[2] {
            do {
                tls = try WireTLS(certificatePath: certificate, keyPath: key, authorityPath: authority)
            } catch {
                reader.report("wire.tls", error.description)
            }
        } else if tlsPaths.contains(where: { $0 != nil }) {
            reader.report("wire.tls", "set wire.tls.certificate, wire.tls.key and wire.tls.authority together, or none")
        }
        guard let secret, reader.isClean else { throw reader.failure }
        return ProcessSettings(
            service: service, logLevel: logLevel, logFormat: logFormat, wireHost: wireHost, wirePort: wirePort,
            adminHost: adminHost, adminPort: adminPort, maximumFrameLength: frame, maximumConnections: connections,
            maximumUnprovenConnections: unproven, stallTimeout: .milliseconds(Int64(stall)),
            shutdownGracePeriod: .seconds(Int64(grace)),
            internalSecret: secret, wireTLS: tls)
    }

    /// The Wire server settings these amount to.
    public var wireServer: WireServerConfiguration {
        WireServerConfiguration(
            host: wireHost, port: wirePort, serviceName: service, secret: internalSecret,
            maximumFrameLength: maximumFrameLength, stallTimeout: stallTimeout, maximumConnections: maximumConnections,
            maximumUnprovenConnections: maximumUnprovenConnections, shutdownGracePeriod: shutdownGracePeriod,
            tls: wireTLS)
    }
}
