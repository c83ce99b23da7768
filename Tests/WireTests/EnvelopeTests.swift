import Domain
import Foundation
import NIOCore
import Testing
import WireCodec

@testable import Wire

@Suite("Envelope")
struct EnvelopeTests {
    @Test("every field survives a round trip, and the body stays the same bytes")
    func roundTrip() throws {
        let principal = Principal(userID: UserID(), role: .staff, storeID: StoreID())
        let body = ByteBuffer(string: #"{"b":[1,2,{"c":"\"q\""}],"d":null}"#)
        let envelope = WireEnvelope(
            type: .request, id: 42, method: "orders.create", deadlineMilliseconds: 1500,
            trace: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01", requestID: "req-1",
            principal: principal, idempotencyKey: "key \"with\" quotes\n", body: body)
        let parsed = try WireEnvelope.parse(envelope.encoded(allocator: ByteBufferAllocator()))
        #expect(parsed.type == .request)
        #expect(parsed.id == 42)
        #expect(parsed.method == "orders.create")
        #expect(parsed.deadlineMilliseconds == 1500)
        #expect(parsed.trace == envelope.trace)
        #expect(parsed.requestID == "req-1")
        #expect(parsed.principal == principal)
        #expect(parsed.idempotencyKey == "key \"with\" quotes\n")
        #expect(parsed.body == body)
    }

    @Test("an error envelope keeps code, message, reason and details")
    func errorRoundTrip() throws {
        let error = OrderlyError(
            .idempotencyKeyReused, "key reused", details: ["field": .string("x")])
        let parsed = try WireEnvelope.parse(
            WireEnvelope(type: .error, id: 7, error: error).encoded(allocator: ByteBufferAllocator()))
        #expect(parsed.type == .error)
        #expect(parsed.id == 7)
        #expect(parsed.error == error)
    }

    @Test("what the envelope writes is valid JSON for any other reader")
    func validJSON() throws {
        let envelope = WireEnvelope(
            type: .response, id: 1, trace: "tab\there \u{1}", body: ByteBuffer(string: #"{"ok":true}"#),
            error: nil)
        let buffer = envelope.encoded(allocator: ByteBufferAllocator())
        let object = try JSONSerialization.jsonObject(with: Data(buffer.readableBytesView)) as? [String: Any]
        #expect(object?["trace"] as? String == "tab\there \u{1}")
        #expect((object?["body"] as? [String: Any])?["ok"] as? Bool == true)
    }

    @Test("unknown fields are ignored and escapes in strings are resolved")
    func tolerant() throws {
        let text =
            #"{"future":{"x":[1,2.5e3,true,false,null]},"v":1,"type":"ping","id":3,"method":"a\u00e9\ud83d\ude00"}"#
        let parsed = try WireEnvelope.parse(ByteBuffer(string: text))
        #expect(parsed.type == .ping)
        #expect(parsed.id == 3)
        #expect(parsed.method == "aé😀")
    }

    @Test(
        "malformed envelopes are refused with a reason, keeping the id when it was read",
        arguments: [
            (#"{"v":1,"id":9,"type":"request","body":{"a":}"#, UInt64(9)),
            (#"{"v":1,"id":9,"type":"launch"}"#, UInt64(9)),
            (#"{"v":2,"id":9,"type":"request"}"#, UInt64(9)),
            (#"{"id":9,"type":"request"}"#, UInt64(9)),
            (#"not json"#, nil),
            (#"{"v":1,"type":"request","id":-1}"#, nil),
            (#"{"v":1,"type":"request","id":99999999999999999999}"#, nil),
            (#"{"v":1,"type":"request","id":1} trailing"#, UInt64(1)),
            (#"{"v":1,"type":"request","id":1,"principal":{"user_id":"x","role":"staff"}}"#, UInt64(1)),
            (
                #"{"v":1,"type":"request","id":1,"principal":{"user_id":"5b0f0e9e-9c2a-4c8e-8a53-2f8f5e8f1a01","role":"king"}}"#,
                UInt64(1)
            ),
            ("{\"v\":1,\"type\":\"request\",\"id\":1,\"method\":\"a\u{1}b\"}", UInt64(1)),
        ])
    func malformed(text: String, id: UInt64?) {
        do {
            _ = try WireEnvelope.parse(ByteBuffer(string: text))
            Issue.record("should not parse: \(text)")
        } catch {
            #expect(error.id == id)
        }
    }

    @Test("nesting deeper than the limit is refused, not a stack overflow")
    func deepNesting() {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        let text = #"{"v":1,"type":"request","id":1,"body":"# + deep + "}"
        #expect(throws: WireEnvelope.ParseError.self) { try WireEnvelope.parse(ByteBuffer(string: text)) }
    }

    @Test("random and mutated input never traps")
    func fuzz() {
        var generator = SystemRandomNumberGenerator()
        let seed = Array(
            WireEnvelope(
                type: .request, id: 5, method: "m", principal: Principal(userID: UserID(), role: .admin, storeID: nil),
                body: ByteBuffer(string: #"{"a":[1,"b",{"c":null}]}"#)
            ).encoded(allocator: ByteBufferAllocator()).readableBytesView)
        for round in 0..<5_000 {
            var bytes = seed
            if round % 2 == 0 {
                for _ in 0..<Int.random(in: 1...4, using: &generator) {
                    bytes[Int.random(in: 0..<bytes.count, using: &generator)] = UInt8.random(
                        in: 0...255, using: &generator)
                }
                bytes.removeLast(Int.random(in: 0..<8, using: &generator))
            } else {
                bytes = (0..<Int.random(in: 0...64, using: &generator)).map { _ in
                    UInt8.random(in: 0...255, using: &generator)
                }
            }
            _ = try? WireEnvelope.parse(ByteBuffer(bytes: bytes))
        }
    }
}

@Suite("Hello")
struct HelloTests {
    let secret = WireSecret("a-shared-internal-secret")!

    @Test("the answer to a server's challenge proves the caller's name with the pair's key")
    func valid() {
        let challenge = WireHello.makeChallenge()
        #expect(challenge.count == 32 && challenge != WireHello.makeChallenge())
        let answer = WireHello.answer(caller: "gateway", server: "orders", challenge: challenge, keys: secret)!
        #expect(answer.proves(challenge: challenge, to: "orders", keys: secret))
    }

    @Test("another secret, another challenge, another name, another server or a garbled proof is refused")
    func tampering() {
        let challenge = WireHello.makeChallenge()
        let answer = WireHello.answer(caller: "gateway", server: "orders", challenge: challenge, keys: secret)!
        #expect(!answer.proves(challenge: challenge, to: "orders", keys: WireSecret("some-other-secret-value")!))
        // A recorded answer does not meet a new challenge.
        #expect(!answer.proves(challenge: WireHello.makeChallenge(), to: "orders", keys: secret))
        var renamed = answer
        renamed.service = "notifications"
        #expect(!renamed.proves(challenge: challenge, to: "orders", keys: secret))
        // An answer meant for the catalog, relayed to orders, proves nothing there.
        let relayed = WireHello.answer(caller: "gateway", server: "catalog", challenge: challenge, keys: secret)!
        #expect(!relayed.proves(challenge: challenge, to: "orders", keys: secret))
        var garbled = answer
        garbled.proof = "zz" + (answer.proof ?? "").dropFirst(2)
        #expect(!garbled.proves(challenge: challenge, to: "orders", keys: secret))
        garbled.proof = nil
        #expect(!garbled.proves(challenge: challenge, to: "orders", keys: secret))
    }

    @Test("a process given its pair keys alone proves itself where the secret would, and nowhere else")
    func pairKeys() throws {
        let challenge = WireHello.makeChallenge()
        let exported = try #require(secret.exportedPair(caller: "gateway", server: "orders"))
        #expect(exported.hasPrefix("gateway>orders=") && exported.count == "gateway>orders=".count + 64)
        let own = try #require(WireSecret(pairs: exported))
        let answer = try #require(
            WireHello.answer(caller: "gateway", server: "orders", challenge: challenge, keys: own))
        #expect(answer.proves(challenge: challenge, to: "orders", keys: secret))
        #expect(answer.proves(challenge: challenge, to: "orders", keys: own))
        #expect(WireHello.answer(caller: "gateway", server: "catalog", challenge: challenge, keys: own) == nil)
        #expect(WireHello.answer(caller: "payments", server: "orders", challenge: challenge, keys: own) == nil)
        for bad in [
            "", "gateway>orders=12", "gateway=\(String(repeating: "a", count: 64))",
            "a>b=" + String(repeating: "g", count: 64),
        ] {
            #expect(WireSecret(pairs: bad) == nil, "\(bad)")
        }
        #expect(!"\(own)".contains(exported.suffix(64)))
    }

    @Test("the secret never shows in descriptions")
    func redacted() {
        #expect(!"\(secret)".contains("shared"))
        #expect(WireSecret("") == nil)
    }
}
