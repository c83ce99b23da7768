// swift-tools-version: 6.1
import PackageDescription

/// Strict Swift 6 checking everywhere.
let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

/// What every service library builds on.
let serviceDependencies: [Target.Dependency] = [
    "Domain", "Contracts", "Events", "Wire", "WireContract", "WireCodec", "Redis", "Storage", "Runtime",
    .product(name: "SQLKit", package: "sql-kit"),
    .product(name: "Logging", package: "swift-log"),
    .product(name: "Metrics", package: "swift-metrics"),
    .product(name: "NIOCore", package: "swift-nio"),
    .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
]

let package = Package(
    name: "orderly",
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: [
        .library(name: "Domain", targets: ["Domain"]),
        .library(name: "JSON", targets: ["JSON"]),
        .library(name: "WireCodec", targets: ["WireCodec"]),
        .library(name: "WireContract", targets: ["WireContract"]),
        .library(name: "Wire", targets: ["Wire"]),
        .library(name: "Runtime", targets: ["Runtime"]),
        .library(name: "Events", targets: ["Events"]),
        .library(name: "Redis", targets: ["Redis"]),
        .library(name: "Storage", targets: ["Storage"]),
        .library(name: "Contracts", targets: ["Contracts"]),
        .executable(name: "orderly", targets: ["OrderlyCLI"]),
        .executable(name: "orderly-bench", targets: ["OrderlyBench"]),
        .executable(name: "orderly-gateway", targets: ["GatewayMain"]),
        .executable(name: "orderly-orders", targets: ["OrdersMain"]),
        .executable(name: "orderly-catalog", targets: ["CatalogMain"]),
        .executable(name: "orderly-payments", targets: ["PaymentsMain"]),
        .executable(name: "orderly-notifications", targets: ["NotificationsMain"]),
        .library(name: "OrderlyWireFuzz", type: .dynamic, targets: ["WireFuzz"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(
            url: "https://github.com/apple/swift-configuration",
            from: "1.4.0",
            traits: [.defaults, "CommandLineArguments"]
        ),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/vapor/sql-kit", from: "3.36.0"),
        .package(url: "https://github.com/vapor/postgres-kit", from: "2.17.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-nio-http2", from: "1.46.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth", from: "2.5.0"),
        .package(url: "https://github.com/vapor/jwt-kit", from: "5.8.0"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache", from: "2.1.1"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift", from: "0.2.0"),
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.7.3"),
        // OTLP over HTTP only: the gRPC exporter's dependencies would double the build.
        // Exact: SwiftPM 6.3 leaves a dependency with traits out of Package.resolved, which pins the rest.
        .package(url: "https://github.com/swift-otel/swift-otel", exact: "1.6.0", traits: ["OTLPHTTP"]),
    ],
    targets: [
        // Pure business values and rules: Foundation only, so the iOS apps can link it too.
        .target(name: "Domain", path: "Shared/Domain", swiftSettings: strict),
        // The hand-written JSON: the scanner behind the Wire envelope, its string writer, and
        // event payloads carried as text.
        .target(
            name: "JSON",
            dependencies: ["Domain", .product(name: "NIOCore", package: "swift-nio")],
            path: "Shared/JSON",
            swiftSettings: strict
        ),
        // The protocol's bytes: frames, the envelope and its errors, with no I/O of their own, so
        // the Wire fuzzer builds on them and NIOCore alone (deploy/local/fuzz-wire.sh).
        .target(
            name: "WireCodec",
            dependencies: ["Domain", "JSON", .product(name: "NIOCore", package: "swift-nio")],
            path: "Shared/WireCodec",
            swiftSettings: strict
        ),
        // What a Wire method is and who may call it, with no transport: Contracts builds on it
        // alone, so the request types are usable without sockets, TLS or a lifecycle.
        .target(name: "WireContract", dependencies: ["Domain"], path: "Shared/WireContract", swiftSettings: strict),
        .target(
            name: "Wire",
            dependencies: [
                "Domain",
                "Events",
                "JSON",
                "WireCodec",
                "WireContract",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Shared/Wire",
            swiftSettings: strict
        ),
        // What services tell each other: domain events, and the stream a relay publishes them to.
        .target(
            name: "Events",
            dependencies: ["Domain", "JSON", .product(name: "Tracing", package: "swift-distributed-tracing")],
            path: "Shared/Events", swiftSettings: strict),
        // hiredis from Debian's libhiredis-dev, wrapped for Swift in Redis (the events' carrier).
        .systemLibrary(
            name: "CHiredis", path: "Shared/CHiredis", pkgConfig: "hiredis", providers: [.apt(["libhiredis-dev"])]),
        .target(
            name: "Redis",
            dependencies: [
                "CHiredis",
                "Domain",
                "Events",
                "JSON",
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Shared/Redis",
            swiftSettings: strict
        ),
        // SQL that runs unchanged on SQLite and PostgreSQL: migrations, transactions, the
        // outbox relay, the inbox and idempotency records.
        // The system's libsqlite3 (Debian's libsqlite3-dev), driven by Shared/Storage, and the
        // process-wide settings Swift cannot pass to its variadic sqlite3_config.
        .target(name: "CSQLite", path: "Shared/CSQLite", linkerSettings: [.linkedLibrary("sqlite3")]),
        .target(
            name: "Storage",
            dependencies: [
                "CSQLite",
                "Domain",
                "Events",
                "JSON",
                .product(name: "SQLKit", package: "sql-kit"),
                .product(name: "PostgresKit", package: "postgres-kit"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Shared/Storage",
            swiftSettings: strict
        ),
        .target(
            name: "Runtime",
            dependencies: [
                "Domain",
                "Events",
                "Wire",
                "WireCodec",
                "WireContract",
                "Redis",
                "Storage",
                .product(name: "Configuration", package: "swift-configuration"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "OTel", package: "swift-otel"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ],
            path: "Shared/Runtime",
            swiftSettings: strict,
            plugins: ["BuildRevision"]
        ),
        // Writes the commit a build is of into Runtime (`--version`, `orderly_build_info`).
        .plugin(name: "BuildRevision", capability: .buildTool(), path: "Plugins/BuildRevision"),
        // Mail handed to an SMTP server (STARTTLS or TLS, AUTH), and the messages it carries.
        .target(
            name: "Mail",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            path: "Shared/Mail",
            swiftSettings: strict
        ),
        // The Wire methods of each service with their request and response types: the contract
        // between the gateway and the services, shared by both sides.
        .target(
            name: "Contracts",
            dependencies: [
                "Domain", "WireContract", .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Shared/Contracts",
            swiftSettings: strict
        ),
        .target(
            name: "Catalog",
            dependencies: serviceDependencies + [.product(name: "ArgumentParser", package: "swift-argument-parser")],
            path: "Services/Catalog", swiftSettings: strict),
        .target(
            name: "Orders",
            dependencies: serviceDependencies + [.product(name: "ArgumentParser", package: "swift-argument-parser")],
            path: "Services/Orders", swiftSettings: strict),
        .target(
            name: "Payments",
            dependencies: serviceDependencies + ["JSON", .product(name: "Crypto", package: "swift-crypto")],
            path: "Services/Payments", swiftSettings: strict),
        .target(
            name: "Notifications",
            dependencies: serviceDependencies + [
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            path: "Services/Notifications", swiftSettings: strict),
        .target(
            name: "Gateway",
            dependencies: serviceDependencies + [
                "JSON",
                "Mail",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Mustache", package: "swift-mustache"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "HummingbirdBcrypt", package: "hummingbird-auth"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Services/Gateway",
            resources: [.copy("openapi.yaml"), .copy("Console"), .copy("Mail/templates")],
            swiftSettings: strict
        ),
        // The gateway's executable, with the operator's `admin reset-password` (its database's).
        .executableTarget(
            name: "GatewayMain", dependencies: ["Gateway"], path: "Services/GatewayMain", swiftSettings: strict),
        // The orders service's executable, with `bench-order-lists` (its repository's lists timed).
        .executableTarget(
            name: "OrdersMain", dependencies: ["Orders"], path: "Services/OrdersMain", swiftSettings: strict),
        .executableTarget(name: "CatalogMain", dependencies: ["Catalog", "Runtime"], path: "Services/CatalogMain"),
        .executableTarget(name: "PaymentsMain", dependencies: ["Payments", "Runtime"], path: "Services/PaymentsMain"),
        .executableTarget(
            name: "NotificationsMain", dependencies: ["Notifications", "Runtime"], path: "Services/NotificationsMain"),
        // The operator's command line: dead letters, the pipeline, Wire keys, the containers' health
        // probe; called by a service's name, that service (the container image's one executable).
        .executableTarget(
            name: "OrderlyCLI",
            dependencies: [
                "Gateway", "Orders", "Catalog", "Payments", "Notifications",
                "Wire",
                "Redis",
                "Runtime",
                "Domain",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            path: "Tools/OrderlyCLI",
            swiftSettings: strict
        ),
        // The benchmarks and the load generator, over Wire and HTTP: they link no service's code.
        .executableTarget(
            name: "OrderlyBench",
            dependencies: [
                "Domain",
                "Events",
                "JSON",
                "Wire",
                "WireCodec",
                "WireContract",
                "Runtime",
                "Redis",
                "Storage",
                "Contracts",
                .product(name: "SQLKit", package: "sql-kit"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Histogram", package: "hdrhistogram-swift"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Tools/OrderlyBench",
            swiftSettings: strict
        ),
        .testTarget(
            name: "DomainTests", dependencies: ["Domain", "Contracts"], path: "Tests/DomainTests", swiftSettings: strict
        ),
        .testTarget(
            name: "JSONTests",
            dependencies: ["JSON", "Domain", .product(name: "NIOCore", package: "swift-nio")],
            path: "Tests/JSONTests",
            swiftSettings: strict
        ),
        .testTarget(
            name: "WireTests",
            dependencies: [
                "Wire",
                "WireCodec",
                "WireContract",
                "WireFuzz",
                "TestSupport",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOTestUtils", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Tests/WireTests",
            swiftSettings: strict
        ),
        // `make fuzz-wire`: libFuzzer over the frame decoder, the envelope reader and the JSON
        // scanner (deploy/local/fuzz-wire.sh); WireTests runs its checks over the corpus.
        .target(
            name: "WireFuzz",
            dependencies: [
                "WireCodec", "JSON", .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
            ],
            path: "Tests/WireFuzz",
            exclude: ["corpus"],
            swiftSettings: strict
        ),
        // What the integration tests share: throwaway servers and test databases.
        .target(
            name: "TestSupport",
            dependencies: [
                "Redis", "Storage", .product(name: "Logging", package: "swift-log"),
                .product(name: "SQLKit", package: "sql-kit"),
            ],
            path: "Tests/TestSupport",
            swiftSettings: strict
        ),
        .testTarget(
            name: "MailTests",
            dependencies: [
                "Mail", "TestSupport", .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"), .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            path: "Tests/MailTests",
            swiftSettings: strict
        ),
        .testTarget(
            name: "RedisTests",
            dependencies: [
                "Redis", "Domain", "Events", "JSON", "TestSupport", .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Tests/RedisTests",
            swiftSettings: strict
        ),
        .testTarget(
            name: "StorageTests",
            dependencies: [
                "Storage", "Redis", "Domain", "Events", "JSON", "TestSupport",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "SQLKit", package: "sql-kit"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Tests/StorageTests",
            swiftSettings: strict
        ),
        .testTarget(
            name: "RuntimeTests",
            dependencies: [
                "Runtime", "Domain", "Redis", "Storage", "Wire",
                .product(name: "Configuration", package: "swift-configuration"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Tests/RuntimeTests",
            swiftSettings: strict
        ),
        .testTarget(
            name: "ServiceTests",
            dependencies: [
                "Domain", "JSON", "Contracts", "Events", "Wire", "WireCodec", "WireContract", "Redis", "Storage",
                "Runtime",
                "TestSupport",
                "Catalog", "Orders", "Payments", "Notifications", "Gateway",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Yams", package: "Yams"),
                .product(name: "SQLKit", package: "sql-kit"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
            ],
            path: "Tests/ServiceTests",
            swiftSettings: strict
        ),
    ]
)
