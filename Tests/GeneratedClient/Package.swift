// swift-tools-version: 6.1
import PackageDescription

/// The Swift client an app would generate from the gateway's OpenAPI document, driven through one
/// store's flow (deploy/local/client-test.sh): swift-openapi-generator's command writes
/// `Sources/ClientFlow/Generated` from the document the gateway serves, and `ClientFlow` signs in,
/// creates an order and acts on it through that client alone. Apart from the suite's package, so
/// that its build waits for the generated code and the suite's build never does.
let package = Package(
    name: "generated-client",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(url: "https://github.com/apple/swift-openapi-generator", exact: "1.14.3"),
        .package(url: "https://github.com/apple/swift-openapi-runtime", exact: "1.13.4"),
        .package(url: "https://github.com/apple/swift-openapi-urlsession", exact: "1.4.0"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
    ],
    targets: [
        .executableTarget(
            name: "ClientFlow",
            dependencies: [
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "OpenAPIURLSession", package: "swift-openapi-urlsession"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        )
    ]
)
