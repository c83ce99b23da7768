import Foundation
import Logging
import NIOCore
import NIOPosix
import Redis
import SQLKit
public import ServiceLifecycle
import Storage
import Wire

/// Waits for shutdown, then releases what the other services used. First in a service list,
/// so it stops last.
public struct ResourceCloser: Service {
    private let close: @Sendable () async -> Void

    public init(_ close: @escaping @Sendable () async -> Void) { self.close = close }

    public func run() async throws {
        try? await gracefulShutdown()
        await close()
    }
}
