import Foundation

/// Where a service's database lives, parsed from the URL in its configuration.
///
/// - `sqlite:data/orders.sqlite` or `sqlite:///var/lib/orderly/orders.sqlite`: one SQLite file
///   (created when missing), in WAL mode. By default (`?synchronous=full`) a commit is on the disk
///   before it returns, so an answered write survives a power cut; group commit lets one sync
///   serve many transactions. `?synchronous=normal` keeps every commit across a process crash
///   but may lose the last few, never consistency, on a power loss: for those who accept that.
/// - `postgres://user:password@host:5432/database?sslmode=…&sslrootcert=…` (or `postgresql://`):
///   a PostgreSQL database; `?pool=N` sets the most connections (default 10). `sslmode` is
///   `disable`, `prefer` (TLS when the server offers it), `require`, `verify-ca` or `verify-full`;
///   TLS checks the server's certificate against `sslrootcert` (a PEM file of the authorities a
///   managed database's provider publishes) or else the system's trusted ones: `verify-ca` the
///   chain alone, `require`, `prefer` and `verify-full` the host name too (stricter than libpq's
///   `require` and `prefer`, which check nothing).
public enum DatabaseLocation: Sendable, Hashable, CustomStringConvertible {
    case sqlite(path: String, synchronousFull: Bool)
    case postgres(PostgresLocation)

    public struct PostgresLocation: Sendable, Hashable {
        public enum TLSMode: String, Sendable, Hashable, CaseIterable {
            case disable, prefer, require
            case verifyCA = "verify-ca"
            case verifyFull = "verify-full"
        }
        public var host: String
        public var port: Int
        public var username: String
        public var password: String?
        public var database: String
        public var tls: TLSMode
        /// A PEM file of the authorities trusted for the server's certificate, instead of the
        /// system's.
        public var rootCertificates: String?
        public var maximumConnections: Int
    }

    /// Parses a database URL; the error says what is wrong with it, never echoing a password.
    public init(url text: String) throws(DatabaseLocationError) {
        if text.hasPrefix("sqlite:") {
            var rest = String(text.dropFirst("sqlite:".count))
            var query = ""
            if let mark = rest.firstIndex(of: "?") {
                query = String(rest[rest.index(after: mark)...])
                rest = String(rest[..<mark])
            }
            if rest.hasPrefix("//") { rest.removeFirst(2) }
            guard !rest.isEmpty else { throw .init("sqlite URL names no file (sqlite:path/to/file.sqlite)") }
            var synchronousFull = true
            for (name, value) in Self.parameters(query) {
                switch (name, value) {
                case ("synchronous", "full"): synchronousFull = true
                case ("synchronous", "normal"): synchronousFull = false
                default: throw .init("unknown sqlite URL parameter \(name)=\(value) (known: synchronous=normal|full)")
                }
            }
            self = .sqlite(path: rest, synchronousFull: synchronousFull)
            return
        }
        guard text.hasPrefix("postgres://") || text.hasPrefix("postgresql://"),
            let components = URLComponents(string: text)
        else { throw .init("database URL must start with sqlite: or postgres://") }
        guard let host = components.host, !host.isEmpty else { throw .init("postgres URL names no host") }
        guard let username = components.user, !username.isEmpty else {
            throw .init("postgres URL names no user (postgres://user@host/database)")
        }
        let database = String(components.path.drop(while: { $0 == "/" }))
        guard !database.isEmpty else { throw .init("postgres URL names no database (postgres://user@host/database)") }
        let port = components.port ?? 5432
        guard (1...65535).contains(port) else { throw .init("postgres URL port \(port) is out of range") }
        var location = PostgresLocation(
            host: host, port: port, username: username, password: components.password, database: database,
            tls: .prefer, rootCertificates: nil, maximumConnections: 10)
        for (name, value) in Self.parameters(components.query ?? "") {
            switch name {
            case "sslmode":
                guard let mode = PostgresLocation.TLSMode(rawValue: value) else {
                    throw .init(
                        "sslmode must be one of \(PostgresLocation.TLSMode.allCases.map(\.rawValue).joined(separator: ", ")), not \(value)"
                    )
                }
                location.tls = mode
            case "sslrootcert":
                guard !value.isEmpty, FileManager.default.isReadableFile(atPath: value) else {
                    throw .init("sslrootcert names no readable file: '\(value)'")
                }
                location.rootCertificates = value
            case "pool":
                guard let size = Int(value), (1...1000).contains(size) else {
                    throw .init("pool must be a number of connections from 1 to 1000, not \(value)")
                }
                location.maximumConnections = size
            default: throw .init("unknown postgres URL parameter \(name) (known: sslmode, sslrootcert, pool)")
            }
        }
        self = .postgres(location)
    }

    private static func parameters(_ query: String) -> [(String, String)] {
        query.split(separator: "&").map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1)
            let value = parts.count > 1 ? String(parts[1]).removingPercentEncoding ?? String(parts[1]) : ""
            return (String(parts[0]), value)
        }
    }

    /// The location without the password, for logs.
    public var description: String {
        switch self {
        case .sqlite(let path, _): return "sqlite:\(path)"
        case .postgres(let location):
            return "postgres://\(location.username)@\(location.host):\(location.port)/\(location.database)"
        }
    }
}

/// Why a database URL cannot be used.
public struct DatabaseLocationError: Error, Hashable, Sendable, CustomStringConvertible {
    public var reason: String
    init(_ reason: String) { self.reason = reason }
    public var description: String { "invalid database URL: \(reason)" }
}
