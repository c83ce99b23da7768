import Domain
import Foundation
import Logging
import NIOCore
import ServiceLifecycle
import Synchronization
import TestSupport
import Testing
import WireCodec
import WireContract

@testable import Wire

@Suite("Wire server and client", .timeLimit(.minutes(1)))
struct WireServerTests {
    @Test("a typed call round-trips, carrying the caller, principal and idempotency key")
    func roundTrip() async throws {
        let server = try await RunningServer.start()
        let connection = try await server.connect()
        #expect(connection.serverService == "test")
        let echoed = try await connection.call(TestAPI.echo, TestAPI.Echo(text: "héllo \"wire\""))
        #expect(echoed.text == "héllo \"wire\"")
        let principal = Principal(userID: UserID(), role: .manager, storeID: StoreID())
        let who = try await connection.call(
            TestAPI.who, WireEmpty(), options: WireCallOptions(principal: principal, idempotencyKey: "k-1"))
        #expect(who.caller == "tests")
        #expect(who.principal == principal)
        #expect(who.idempotencyKey == "k-1")
        #expect(who.clientRequestID == nil && who.forwardedRequestID == nil)
        // The client request's id rides along, and the handler's own calls would carry it on;
        // one that is not an acceptable id is dropped.
        let carried = try await WireRequestID.$current.withValue("req-42.a_b") {
            try await connection.call(TestAPI.who, WireEmpty())
        }
        #expect(carried.clientRequestID == "req-42.a_b" && carried.forwardedRequestID == "req-42.a_b")
        let dropped = try await WireRequestID.$current.withValue("not acceptable\n") {
            try await connection.call(TestAPI.who, WireEmpty())
        }
        #expect(dropped.clientRequestID == nil && dropped.forwardedRequestID == nil)
        try await connection.ping()
        await connection.close()
        try await server.stop()
    }

    // `.socketOption(.tcp_nodelay)` is SOL_SOCKET's option 1, SO_DEBUG: root may set it (and
    // Nagle stays on), anyone else is refused with EACCES, so no connection was made from a
    // container running as a user.
    @Test("both ends of a connection turn Nagle's algorithm off and leave SO_DEBUG alone")
    func socketOptions() async throws {
        let server = try await RunningServer.start()
        let connection = try await server.connect()
        let accepted = try #require(server.server.openChannels.first)
        for channel in [connection.channel, accepted] {
            #expect(try await channel.getOption(.tcpOption(.tcp_nodelay)).get() == 1)
            #expect(try await channel.getOption(.socketOption(NIOBSDSocket.Option(rawValue: SO_DEBUG))).get() == 0)
        }
        await connection.close()
        try await server.stop()
    }

    @Test(
        "handler errors arrive with their code; unknown errors become internal without their text, transient ones unavailable"
    )
    func errors() async throws {
        let server = try await RunningServer.start()
        let connection = try await server.connect()
        await #expect(
            throws: OrderlyError(.notFound, "no such thing", reason: ErrorReason(rawValue: "thing_not_found"))
        ) {
            try await connection.call(TestAPI.fail, WireEmpty())
        }
        await #expect(throws: OrderlyError(.internal, "internal error")) {
            try await connection.call(TestAPI.crash, WireEmpty())
        }
        await #expect(throws: OrderlyError(.unavailable, "unavailable for the moment; try again")) {
            try await connection.call(TestAPI.busy, WireEmpty())
        }
        await #expect(throws: OrderlyError(.unimplemented, "no method named 'test.missing'")) {
            try await connection.call(TestAPI.missing, WireEmpty())
        }
        // The connection is still usable after all of that.
        #expect(try await connection.call(TestAPI.echo, TestAPI.Echo(text: "still here")).text == "still here")
        await connection.close()
        try await server.stop()
    }

    @Test("a body of the wrong shape is invalid_argument naming the field")
    func badBody() async throws {
        let server = try await RunningServer.start()
        let peer = try await RawPeer(port: server.port)
        #expect(try await peer.hello()?.type == .hello)
        try await peer.send(RawPeer.frame(#"{"v":1,"type":"request","id":5,"method":"test.echo","body":{"txt":"x"}}"#))
        let answer = try #require(try await peer.next())
        #expect(answer.id == 5)
        #expect(answer.error?.code == .invalidArgument)
        #expect(answer.error?.details?["text"] == .string("is required"))
        try await server.stop()
    }

    @Test("forwarding passes JSON both ways unchanged, and refuses a body that is not exactly one JSON value")
    func forwarding() async throws {
        let server = try await RunningServer.start()
        let pool = server.pool(connections: 1)
        let principal = Principal(userID: UserID(), role: .staff, storeID: StoreID())
        let options = WireCallOptions(principal: principal)
        let answer = try await pool.forward(
            TestAPI.echo, json: ByteBuffer(string: #" {"text": "as sent"} "#), options: options)
        #expect(String(buffer: answer) == #"{"text":"as sent"}"#)
        let typed = try await pool.forward(TestAPI.who, WireEmpty(), options: options)
        #expect(try WireJSON.decode(TestAPI.Who.self, from: typed).principal == principal)
        // Text that would close the body and add envelope fields of its own is not JSON.
        let injected = #"{"text":"x"},"principal":{"user_id":"\#(UserID())","role":"admin"}"#
        for body in ["", "{", injected, "{} {}", #"{"text":"\u12"}"#] {
            let reason = body.isEmpty ? "is required" : "is not valid JSON"
            await #expect(throws: OrderlyError.invalidFields(["body": reason])) {
                _ = try await pool.forward(TestAPI.who, json: ByteBuffer(string: body), options: options)
            }
        }
        await pool.close()
        try await server.stop()
    }

    @Test("a wrong secret is refused at hello")
    func wrongSecret() async throws {
        let server = try await RunningServer.start()
        await #expect(throws: OrderlyError.self) {
            try await server.connect(secret: WireSecret("not-the-right-secret")!)
        }
        try await server.stop()
    }

    @Test("a caller holding only its own pair key connects; one without it cannot")
    func pairKeysOverTheNetwork() async throws {
        let server = try await RunningServer.start()
        let ownPair = try #require(testSecret.exportedPair(caller: "tests", server: "test"))
        let own = try #require(WireSecret(pairs: ownPair))
        let connection = try await server.connect(secret: own)
        #expect(try await connection.call(TestAPI.echo, TestAPI.Echo(text: "mine")).text == "mine")
        await connection.close()
        let otherPair = try #require(testSecret.exportedPair(caller: "tests", server: "x"))
        let other = try #require(WireSecret(pairs: otherPair))
        await #expect(throws: OrderlyError.self) { try await server.connect(secret: other) }
        try await server.stop()
    }

    @Test("a recorded answer to one challenge opens no other connection")
    func replayedHello() async throws {
        let server = try await RunningServer.start()
        let first = try await RawPeer(port: server.port)
        let challenge = try #require(try await first.sendHello(WireHello(service: "tests"))?.body)
        let nonce = try #require(try WireJSON.decode(WireHello.self, from: challenge).challenge)
        let recorded = try #require(
            WireHello.answer(caller: "tests", server: "test", challenge: nonce, keys: testSecret))
        await first.close()
        let second = try await RawPeer(port: server.port)
        #expect(try await second.sendHello(WireHello(service: "tests"))?.type == .hello)
        #expect(try await second.sendHello(recorded)?.error?.code == .unauthenticated)
        #expect(try await second.framesUntilClosed().isEmpty)
        try await server.stop()
    }

    @Test("only named callers connect, each to its methods, and only those allowed state a user")
    func callerTable() async throws {
        let server = try await RunningServer.start(
            callers: WireCallers([
                "tests": WireCallers.Grant(methods: ["test.echo", "test.who"], mayCarryPrincipal: false),
                "gateway": WireCallers.everything,
            ]))
        await #expect(throws: OrderlyError.self) { try await server.connect(as: "intruder") }
        let limited = try await server.connect()
        #expect(try await limited.call(TestAPI.echo, TestAPI.Echo(text: "hi")).text == "hi")
        let user = Principal(userID: UserID(), role: .admin, storeID: nil)
        for refused in [
            { _ = try await limited.call(TestAPI.write, TestAPI.Echo(text: "x")) },
            { _ = try await limited.call(TestAPI.who, WireEmpty(), options: WireCallOptions(principal: user)) },
        ] as [() async throws -> Void] {
            await #expect(throws: OrderlyError.self) { try await refused() }
        }
        let gateway = try await server.connect(as: "gateway")
        let who = try await gateway.call(TestAPI.who, WireEmpty(), options: WireCallOptions(principal: user))
        #expect(who.caller == "gateway")
        await limited.close()
        await gateway.close()
        try await server.stop()
    }

    @Test("every frame before a valid hello is refused and the connection closed")
    func helloFirst() async throws {
        let server = try await RunningServer.start()
        let peer = try await RawPeer(port: server.port)
        try await peer.send(RawPeer.frame(#"{"v":1,"type":"request","id":1,"method":"test.echo","body":{"text":"x"}}"#))
        let frames = try await peer.framesUntilClosed()
        #expect(frames.count == 1)
        #expect(frames.first?.error?.code == .unauthenticated)
        #expect(!peer.isActive)
        try await server.stop()
    }

    @Test("a hello naming its service with a line break is refused without writing the name to a log or the answer")
    func helloNameInjection() async throws {
        let logs = LogRecording()
        let server = try await RunningServer.start(
            callers: WireCallers(["tests": WireCallers.everything]), logger: logs.logger("test.server"))
        let peer = try await RawPeer(port: server.port)
        let forged = "gateway\nnotice orderly.payments: refund approved"  // within 64 bytes
        let answer = try await peer.sendHello(WireHello(service: forged))
        #expect(answer?.error?.code == .unauthenticated)
        #expect(answer?.error?.message.contains("refund") == false)
        try await server.stop()
        let lines = logs.lines
        #expect(lines.contains { $0.contains("hello refused") })
        #expect(!lines.contains { $0.contains("refund approved") }, "\(lines)")
    }

    @Test("responses come back as they finish, not in request order", .timeLimit(.minutes(1)))
    func outOfOrder() async throws {
        let (entries, entered) = AsyncStream<Void>.makeStream()
        let release = Latch()
        // The slow call is held until the fast one has been answered, however loaded the machine.
        let server = try await RunningServer.start(
            router: TestAPI.makeRouter {
                entered.yield()
                await release.wait()
            })
        let connection = try await server.connect()
        let order = Recorder()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                let answer = try await connection.call(TestAPI.echo, TestAPI.Echo(text: "slow", delayMilliseconds: 0))
                order.append(answer.text)
            }
            var iterator = entries.makeAsyncIterator()
            await iterator.next()
            let answer = try await connection.call(TestAPI.echo, TestAPI.Echo(text: "fast"))
            order.append(answer.text)
            release.open()
            try await group.waitForAll()
        }
        #expect(order.items == ["fast", "slow"])
        await connection.close()
        try await server.stop()
    }

    @Test("a call whose deadline passes fails with deadline_exceeded, on time")
    func deadline() async throws {
        let server = try await RunningServer.start()
        let connection = try await server.connect()
        let started = ContinuousClock.now
        await #expect(throws: OrderlyError(.deadlineExceeded, "no answer before the deadline")) {
            try await connection.call(
                TestAPI.echo, TestAPI.Echo(text: "late", delayMilliseconds: 10_000),
                options: WireCallOptions(timeout: .milliseconds(100)))
        }
        // Well before the handler's answer at 10 s (the margin is for a machine busy with the
        // other suites: a 100 ms deadline has fired 2.3 s late there).
        #expect(ContinuousClock.now - started < .seconds(8))
        #expect(try await connection.call(TestAPI.echo, TestAPI.Echo(text: "next")).text == "next")
        await connection.close()
        try await server.stop()
    }

    @Test("1,000 concurrent calls on one connection and through a pool all get their own answer")
    func concurrency() async throws {
        let server = try await RunningServer.start()
        let connection = try await server.connect()
        let pool = server.pool(connections: 4)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<1000 {
                group.addTask {
                    let text = "call-\(index)"
                    let answer =
                        index % 2 == 0
                        ? try await connection.call(
                            TestAPI.echo, TestAPI.Echo(text: text, delayMilliseconds: index % 7))
                        : try await pool.call(TestAPI.echo, TestAPI.Echo(text: text, delayMilliseconds: index % 5))
                    #expect(answer.text == text)
                }
            }
            try await group.waitForAll()
        }
        await pool.close()
        await connection.close()
        try await server.stop()
    }

    @Test("a pool of several endpoints spreads calls over all of them, not only the first it opened")
    func spreadsOverEndpoints() async throws {
        var servers: [RunningServer] = []
        for name in ["a", "b"] {
            var router = WireRouter()
            router.register(TestAPI.echo) { _, _ in TestAPI.Echo(text: name, delayMilliseconds: 0) }
            servers.append(try await RunningServer.start(router: router))
        }
        let pool = WireClient(
            configuration: WireClientConfiguration(
                service: "test", endpoints: servers.map { WireEndpoint(host: "127.0.0.1", port: $0.port) },
                callerService: "tests", secret: testSecret),
            logger: Logger(label: "test.client"))
        // The second endpoint's connection opens beside the calls; then both take turns.
        var answered: [String: Int] = [:]
        let spread = try await waitUntil {
            let answer = try await pool.call(TestAPI.echo, TestAPI.Echo(text: "", delayMilliseconds: 0))
            answered[answer.text, default: 0] += 1
            return answered["a", default: 0] >= 3 && answered["b", default: 0] >= 3
        }
        #expect(spread, "\(answered)")
        await pool.close()
        for server in servers { try await server.stop() }
    }

    @Test("malformed JSON or an unknown frame type gets an error frame; the connection stays usable")
    func malformedFrame() async throws {
        let server = try await RunningServer.start()
        let peer = try await RawPeer(port: server.port)
        #expect(try await peer.hello()?.type == .hello)
        try await peer.send(RawPeer.frame(#"{"v":1,"id":3,"type":"request","body":{"#))
        let first = try #require(try await peer.next())
        #expect(first.type == .error)
        #expect(first.id == 3)
        #expect(first.error?.code == .invalidArgument)
        try await peer.send(RawPeer.frame(#"{"v":1,"id":4,"type":"pong"}"#))
        #expect(try await peer.next()?.error?.code == .invalidArgument)
        try await peer.send(
            RawPeer.frame(#"{"v":1,"id":5,"type":"request","method":"test.echo","body":{"text":"ok"}}"#))
        let answer = try #require(try await peer.next())
        #expect(answer.type == .response)
        #expect(answer.id == 5)
        try await server.stop()
    }

    @Test("a frame over the limit gets an error frame, then the connection is closed")
    func oversizedFrame() async throws {
        let server = try await RunningServer.start(maximumFrameLength: 1024)
        let peer = try await RawPeer(port: server.port)
        #expect(try await peer.hello()?.type == .hello)
        var header = ByteBuffer()
        header.writeInteger(UInt32(1_000_000))
        header.writeString("{\"v\":1")
        try await peer.send(header)
        let frames = try await peer.framesUntilClosed()
        #expect(frames.count == 1)
        #expect(frames.first?.error?.code == .invalidArgument)
        #expect(frames.first?.error?.message.contains("exceeds the limit") == true)
        #expect(!peer.isActive)
        try await server.stop()
    }

    @Test("before the hello, a frame over 4 KiB is refused and the connection closed")
    func oversizedHello() async throws {
        let server = try await RunningServer.start()
        let peer = try await RawPeer(port: server.port)
        var header = ByteBuffer()
        header.writeInteger(UInt32(WireDefaults.maximumHelloLength + 1))
        header.writeString("{\"v\":1")
        try await peer.send(header)
        let frames = try await peer.framesUntilClosed()
        #expect(frames.count == 1 && frames.first?.error?.message.contains("exceeds the limit") == true)
        #expect(!peer.isActive)
        try await server.stop()
    }

    @Test("a server keeps at most its maximum of connections open; one more is closed at once")
    func connectionCap() async throws {
        let server = try await RunningServer.start(maximumConnections: 2)
        let first = try await RawPeer(port: server.port)
        #expect(try await first.hello()?.type == .hello)
        let second = try await RawPeer(port: server.port)
        #expect(try await second.hello()?.type == .hello)
        let third = try await RawPeer(port: server.port)
        #expect(try await third.framesUntilClosed().isEmpty)
        #expect(!third.isActive)
        // Once one closes, the server accepts again (a while under the other suites' load).
        await first.close()
        #expect(
            await waitUntil(within: .seconds(30)) {
                guard let peer = try? await RawPeer(port: server.port) else { return false }
                let answered = (try? await peer.hello())??.type == .hello
                await peer.close()
                return answered
            })
        try await server.stop()
    }

    @Test("a response over the frame limit fails that call only; the connection stays usable")
    func oversizedResponse() async throws {
        let server = try await RunningServer.start(maximumFrameLength: 1024)
        let connection = try await server.connect()
        async let slow = connection.call(TestAPI.echo, TestAPI.Echo(text: "other call", delayMilliseconds: 200))
        do {
            _ = try await connection.call(TestAPI.amplify, TestAPI.Echo(text: String(repeating: "x", count: 200)))
            Issue.record("a response over the limit was sent")
        } catch let error as OrderlyError {
            #expect(error.code == .internal)
            #expect(error.message.contains("exceeds the frame limit"))
        }
        #expect(try await slow.text == "other call")
        #expect(try await connection.call(TestAPI.echo, TestAPI.Echo(text: "small")).text == "small")
        await connection.close()
        try await server.stop()
    }

    @Test("a request over the client's frame limit is refused before sending, not retried")
    func oversizedRequest() async throws {
        let server = try await RunningServer.start()
        let pool = WireClient(
            configuration: WireClientConfiguration(
                service: "test", endpoints: [WireEndpoint(host: "127.0.0.1", port: server.port)],
                callerService: "tests", secret: testSecret, maximumFrameLength: 1024),
            logger: Logger(label: "test.client"))
        do {
            _ = try await pool.call(TestAPI.echo, TestAPI.Echo(text: String(repeating: "z", count: 2000)))
            Issue.record("an oversized request was sent")
        } catch let error as OrderlyError {
            #expect(error.code == .invalidArgument)
            #expect(error.message.contains("exceeds the frame limit of 1024"))
        }
        #expect(try await pool.call(TestAPI.echo, TestAPI.Echo(text: "fits")).text == "fits")
        await pool.close()
        try await server.stop()
    }

    @Test("requests over the per-connection in-flight limit are refused with resource_exhausted")
    func inFlightLimit() async throws {
        let (entries, entered) = AsyncStream<Void>.makeStream()
        let release = Latch()
        let server = try await RunningServer.start(
            maximumInFlight: 2,
            router: TestAPI.makeRouter {
                entered.yield()
                await release.wait()
            })
        let connection = try await server.connect()
        async let first = connection.call(TestAPI.echo, TestAPI.Echo(text: "1", delayMilliseconds: 0))
        async let second = connection.call(TestAPI.echo, TestAPI.Echo(text: "2", delayMilliseconds: 0))
        var iterator = entries.makeAsyncIterator()
        await iterator.next()
        await iterator.next()
        await #expect(throws: OrderlyError(.resourceExhausted, "too many requests in flight on this connection")) {
            try await connection.call(TestAPI.echo, TestAPI.Echo(text: "3"))
        }
        release.open()
        #expect(try await first.text == "1")
        #expect(try await second.text == "2")
        await connection.close()
        try await server.stop()
    }

    @Test("a peer that sends half a frame and stalls is timed out and disconnected")
    func halfFrameStall() async throws {
        // The peer must prove itself within the stall timeout too: time enough for the two
        // round trips of the hello while the other suites load the machine (3 s was not, once).
        let server = try await RunningServer.start(stallTimeout: .seconds(10))
        let peer = try await RawPeer(port: server.port)
        #expect(try await peer.hello()?.type == .hello)
        let frame = RawPeer.frame(#"{"v":1,"id":1,"type":"ping"}"#)
        try await peer.send(frame.getSlice(at: 0, length: 10)!)
        let started = ContinuousClock.now
        let frames = try await peer.framesUntilClosed()
        // Well below the test servers' 60 s default: the 10 s configured here did it. The bound
        // is loose because the other suites load the machine meanwhile.
        #expect(ContinuousClock.now - started < .seconds(40))
        #expect(frames.first?.error?.message.contains("not completed") == true)
        #expect(!peer.isActive)
        try await server.stop()
    }

    @Test("N2: a peer that says hello and never proves itself is let go at the stall timeout")
    func unprovenPeer() async throws {
        // Time enough for the challenge while the other suites load the machine.
        let server = try await RunningServer.start(stallTimeout: .seconds(3))
        let peer = try await RawPeer(port: server.port)
        #expect(try await peer.sendHello(WireHello(service: "raw"))?.type == .hello)  // the challenge
        #expect(await waitUntil(within: .seconds(20)) { !peer.isActive })
        try await server.stop()
    }

    @Test("N2: until the proof is accepted, every frame is held to the hello's 4 KiB")
    func oversizedProof() async throws {
        let server = try await RunningServer.start(stallTimeout: .seconds(30))
        let peer = try await RawPeer(port: server.port)
        #expect(try await peer.sendHello(WireHello(service: "raw"))?.type == .hello)
        var header = ByteBuffer()
        header.writeInteger(UInt32(4 << 20))
        header.writeString("{\"v\":1")
        try await peer.send(header)
        let frames = try await peer.framesUntilClosed()
        #expect(frames.first?.error?.message.contains("exceeds the limit") == true, "\(frames)")
        #expect(!peer.isActive)
        try await server.stop()
    }

    @Test("N2: connections yet to prove themselves have a cap of their own; proven ones do not count")
    func unprovenCap() async throws {
        let server = try await RunningServer.start(maximumUnprovenConnections: 2)
        let proven = try await RawPeer(port: server.port)
        #expect(try await proven.hello()?.type == .hello)
        let first = try await RawPeer(port: server.port)
        let second = try await RawPeer(port: server.port)
        #expect(try await second.sendHello(WireHello(service: "raw"))?.type == .hello)
        let third = try await RawPeer(port: server.port)
        #expect(try await third.framesUntilClosed().isEmpty)
        #expect(!third.isActive && first.isActive && proven.isActive)
        try await server.stop()
    }

    @Test("a peer that never says hello is disconnected")
    func silentPeer() async throws {
        let server = try await RunningServer.start(stallTimeout: .milliseconds(300))
        let peer = try await RawPeer(port: server.port)
        let frames = try await peer.framesUntilClosed()
        #expect(frames.first?.error?.code == .unauthenticated)
        try await server.stop()
    }

    @Test("the pool recovers when the server restarts while calls keep coming")
    func serverRestart() async throws {
        // The pool talks to a relay whose port stays the same, so the server behind it can be
        // replaced by one on a new port: no port is ever bound twice.
        var server = try await RunningServer.start()
        let relay = try await TCPRelay.start(routingTo: server.port)
        let pool = WireClient(
            configuration: WireClientConfiguration(
                service: "test", endpoints: [WireEndpoint(host: "127.0.0.1", port: relay.port)],
                callerService: "tests", secret: testSecret, connectionsPerEndpoint: 2,
                reconnectBackoff: (.milliseconds(20), .milliseconds(200)), maximumAttempts: 2),
            logger: Logger(label: "test.client"))
        // The first connection, under the other suites' load, may take longer than one call's deadline.
        let before = await eventually(within: .seconds(30)) {
            try? await pool.call(TestAPI.echo, TestAPI.Echo(text: "before")).text
        }
        #expect(before == "before")
        relay.route(to: nil)
        try await server.stop()
        relay.dropConnections()
        for _ in 0..<5 {
            do {
                _ = try await pool.call(
                    TestAPI.echo, TestAPI.Echo(text: "down"), options: WireCallOptions(timeout: .milliseconds(200)))
                Issue.record("a call succeeded while the server was down")
            } catch let error as OrderlyError {
                #expect(error.code == .unavailable || error.code == .deadlineExceeded)
            }
        }
        server = try await RunningServer.start()
        relay.route(to: server.port)
        // Within moments; a while under the other suites' load.
        let answer = await eventually(within: .seconds(30)) {
            try? await pool.call(TestAPI.echo, TestAPI.Echo(text: "after")).text
        }
        #expect(answer == "after")
        await pool.close()
        try await relay.stop()
        try await server.stop()
    }

    @Test("a call lost in flight is retried only when safe: a read, or a write with an idempotency key")
    func retrySafety() async throws {
        let dropper = try await DroppingServer.start()
        let client = WireClient(
            configuration: WireClientConfiguration(
                service: "dropper", endpoints: [WireEndpoint(host: "127.0.0.1", port: dropper.port)],
                callerService: "tests", secret: testSecret, connectionsPerEndpoint: 1,
                // A hello that the other suites slow past the default 2 s would spend an attempt.
                connectTimeout: .seconds(10), reconnectBackoff: (.milliseconds(1), .milliseconds(5)),
                maximumAttempts: 3),
            logger: Logger(label: "test.client"))

        // Long deadlines: what is counted is attempts, and a loaded test run must not end a
        // call before its last attempt.
        let patient = WireCallOptions(timeout: .seconds(30))
        await #expect(throws: OrderlyError.self) {
            try await client.call(TestAPI.write, TestAPI.Echo(text: "w"), options: patient)
        }
        #expect(dropper.requests == 1)

        await #expect(throws: OrderlyError.self) {
            try await client.call(
                TestAPI.write, TestAPI.Echo(text: "w"),
                options: WireCallOptions(timeout: .seconds(30), idempotencyKey: "same-key"))
        }
        #expect(dropper.requests == 4)

        await #expect(throws: OrderlyError.self) {
            try await client.call(TestAPI.echo, TestAPI.Echo(text: "r"), options: patient)
        }
        #expect(dropper.requests == 7)
        await client.close()
        try await dropper.channel.close()
    }

    @Test("a handler's own unavailable error is retried for a read, never for an unkeyed write")
    func handlerUnavailable() async throws {
        let calls = Recorder()
        var router = WireRouter()
        let down: @Sendable (TestAPI.Echo, WireRequestContext) async throws -> TestAPI.Echo = { request, _ in
            calls.append(request.text)
            throw OrderlyError(.unavailable, "the database is down")
        }
        router.register(TestAPI.write, down)
        router.register(TestAPI.echo, down)
        let server = try await RunningServer.start(router: router)
        let pool = server.pool(connections: 1, maximumAttempts: 3)
        await #expect(throws: OrderlyError(.unavailable, "the database is down")) {
            try await pool.call(TestAPI.write, TestAPI.Echo(text: "write"))
        }
        #expect(calls.items == ["write"])
        await #expect(throws: OrderlyError(.unavailable, "the database is down")) {
            try await pool.call(TestAPI.echo, TestAPI.Echo(text: "read"))
        }
        #expect(calls.items == ["write", "read", "read", "read"])
        await pool.close()
        try await server.stop()
    }

    @Test("graceful shutdown finishes requests in flight, refuses new connections, then returns")
    func gracefulShutdown() async throws {
        let (entries, entered) = AsyncStream<Void>.makeStream()
        let server = try await RunningServer.start(router: TestAPI.makeRouter { entered.yield() })
        let connection = try await server.connect()
        let results = try await withThrowingTaskGroup(of: String.self) { group in
            for index in 0..<20 {
                group.addTask {
                    try await connection.call(
                        TestAPI.echo, TestAPI.Echo(text: "in-flight-\(index)", delayMilliseconds: 400)
                    ).text
                }
            }
            var iterator = entries.makeAsyncIterator()
            for _ in 0..<20 { await iterator.next() }
            server.server.shutdownGracefully()
            var results: [String] = []
            for try await result in group { results.append(result) }
            return results
        }
        #expect(results.count == 20)
        #expect(Set(results).count == 20)
        try await server.task.value
        await #expect(throws: OrderlyError.self) { try await server.connect() }
    }

    @Test("a request that reaches a draining server is refused unrun, as retryable")
    func drainingRefusal() async throws {
        let (entries, entered) = AsyncStream<Void>.makeStream()
        let release = Latch()
        let draining = try await RunningServer.start(
            router: TestAPI.makeRouter {
                entered.yield()
                await release.wait()
            })
        let connection = try await draining.connect()
        async let held = connection.call(TestAPI.echo, TestAPI.Echo(text: "held", delayMilliseconds: 0))
        var iterator = entries.makeAsyncIterator()
        await iterator.next()
        draining.server.shutdownGracefully()
        // Calls go on being answered until the connection has heard of the drain.
        let refusal: OrderlyError? = await eventually {
            do {
                _ = try await connection.call(TestAPI.echo, TestAPI.Echo(text: "late"))
                return nil
            } catch {
                return error as? OrderlyError
            }
        }
        release.open()
        #expect(refusal == OrderlyError(.draining, "server is shutting down"))
        #expect(try await held.text == "held")
        try await draining.task.value
    }

    @Test("inside a ServiceGroup, triggering graceful shutdown drains the server")
    func serviceLifecycle() async throws {
        let (entries, entered) = AsyncStream<Void>.makeStream()
        let server = WireServer(
            configuration: WireServerConfiguration(port: 0, serviceName: "test", secret: testSecret),
            router: TestAPI.makeRouter { entered.yield() }, logger: Logger(label: "test"))
        let group = ServiceGroup(services: [server], logger: Logger(label: "test"))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            let port = try await server.localAddress().port!
            let connection = try await WireConnection.connect(
                host: "127.0.0.1", port: port, server: "test", callerService: "tests", secret: testSecret,
                connectTimeout: .seconds(10))
            async let slow = connection.call(TestAPI.echo, TestAPI.Echo(text: "slow", delayMilliseconds: 300))
            var iterator = entries.makeAsyncIterator()
            await iterator.next()
            await group.triggerGracefulShutdown()
            #expect(try await slow.text == "slow")
            try await tasks.waitForAll()
        }
    }
}
