import Domain
import Foundation
import Logging
import NIOCore
import NIOEmbedded
import Testing

@testable import Gateway

@Suite("The HTTP edge")
struct EdgeLimitTests {
    @Test("a public answer for a service out of reach names no host or address")
    func noInternalNames() {
        for code in [ErrorCode.unavailable, .deadlineExceeded] {
            let seen = ErrorEnvelopeMiddleware.publicForm(
                of: OrderlyError(code, "cannot connect to orders.internal:7201 (10.0.3.7): connection refused"),
                logger: Logger(label: "tests.edge"))
            #expect(seen.code == code)
            #expect(!seen.message.contains("7201") && !seen.message.contains("orders.internal"))
        }
        let mine = OrderlyError(.notFound, "no order o1")
        #expect(ErrorEnvelopeMiddleware.publicForm(of: mine, logger: Logger(label: "tests.edge")) == mine)
    }

    @Test("at most eight long-polls wait for one user; another user is not affected")
    func longPollsPerUser() async {
        let hub = WakeHub()
        let (user, other) = (UserID(), UserID())
        var tickets: [UInt64] = []
        for _ in 0..<WakeHub.maximumPerUser { tickets.append(await hub.enter(user)!) }
        #expect(await hub.enter(user) == nil)
        #expect(await hub.enter(other) != nil)
        await hub.leave(tickets[0])
        #expect(await hub.enter(user) != nil)
    }

    @Test("connections beyond the maximum are closed as they open; a closed one makes room")
    func connectionCap() throws {
        let limit = ConnectionLimit(maximum: 2, logger: Logger(label: "tests.edge"))
        func accept() throws -> EmbeddedChannel {
            let channel = EmbeddedChannel(handler: limit.handler())
            try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
            return channel
        }
        let first = try accept()
        let second = try accept()
        let third = try accept()
        #expect(first.isActive && second.isActive && !third.isActive)
        _ = try first.finish()
        let fourth = try accept()
        #expect(fourth.isActive)
        _ = try? second.finish()
        _ = try? fourth.finish()
    }
}
