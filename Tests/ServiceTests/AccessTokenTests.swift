import Domain
import Foundation
import Synchronization
import Testing

@testable import Gateway

@Suite("Access tokens")
struct AccessTokenTests {
    static let user = User(
        id: UserID(), email: "s@x.com", name: "S", phone: nil, role: .staff, storeID: StoreID(), staffRole: nil,
        active: true, onDuty: false, version: 1, createdAt: Date.currentMillisecond,
        updatedAt: Date.currentMillisecond)

    @Test("a verified token is answered from memory; one changed in a byte, or signed with another key, is not")
    func verifiedOnce() async throws {
        let tokens = await TokenIssuer.make(
            secret: "test-secret-test-secret-test-secret", accessLifetime: .seconds(900),
            refreshLifetime: .seconds(3600))
        let token = try await tokens.issue(
            for: Self.user, tokenVersion: 3, client: SessionClient(device: nil, address: nil)
        ).tokens.accessToken
        let first = try await tokens.verify(accessToken: token)
        #expect(first.principal.userID == Self.user.id && first.tokenVersion == 3)
        #expect(tokens.verified.count == 1)
        let again = try await tokens.verify(accessToken: token)
        #expect(again.principal == first.principal && tokens.verified.count == 1)

        // A character of the signature changed: refused, however well its twin is known.
        var characters = Array(token)
        let index = characters.count - 10
        characters[index] = characters[index] == "A" ? "B" : "A"
        let tampered = String(characters)
        await #expect(throws: OrderlyError.self) { try await tokens.verify(accessToken: tampered) }
        let elsewhere = await TokenIssuer.make(
            secret: "another-secret-another-secret-another", accessLifetime: .seconds(900),
            refreshLifetime: .seconds(3600))
        await #expect(throws: OrderlyError.self) { try await elsewhere.verify(accessToken: token) }
    }

    @Test("a remembered token goes when it expires, and a full memory makes room")
    func expiryAndCapacity() {
        let clock = Mutex(Date(timeIntervalSince1970: 1_000_000))
        let verified = VerifiedTokens(capacity: 4, now: { clock.withLock { $0 } })
        let principal = Principal(userID: UserID(), role: .staff, storeID: StoreID())
        let start = clock.withLock { $0 }
        verified.remember("a", .init(principal: principal, tokenVersion: 0, expires: start.addingTimeInterval(10)))
        #expect(verified.lookUp("a") != nil)
        clock.withLock { $0 = start.addingTimeInterval(10) }
        #expect(verified.lookUp("a") == nil && verified.count == 0)

        for name in ["b", "c", "d"] {
            verified.remember(name, .init(principal: principal, tokenVersion: 0, expires: start.addingTimeInterval(5)))
        }
        verified.remember("e", .init(principal: principal, tokenVersion: 0, expires: start.addingTimeInterval(60)))
        // Full: the expired make room.
        verified.remember("f", .init(principal: principal, tokenVersion: 0, expires: start.addingTimeInterval(60)))
        #expect(verified.count == 2 && verified.lookUp("e") != nil && verified.lookUp("f") != nil)
        // Full of live tokens: all go, the new one stays.
        for name in ["g", "h"] {
            verified.remember(name, .init(principal: principal, tokenVersion: 0, expires: start.addingTimeInterval(60)))
        }
        verified.remember("i", .init(principal: principal, tokenVersion: 0, expires: start.addingTimeInterval(60)))
        #expect(verified.count == 1 && verified.lookUp("i") != nil)
    }
}
