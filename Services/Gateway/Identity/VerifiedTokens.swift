import Crypto
import Domain
import Foundation
import JWTKit
import Synchronization

/// Access tokens already verified, keyed by the whole token (so a token that differs in one
/// byte is verified afresh), each until its own expiry. At most `capacity` are kept: when full,
/// the expired go, and if that frees too little, all. What a token says is all it is trusted for:
/// whether its session still stands is checked on every request anyway (`Sessions`).
final class VerifiedTokens: Sendable {
    struct Entry: Sendable {
        var principal: Principal
        var tokenVersion: Int64
        var session: String?
        var locale: String?
        var expires: Date
    }

    private let entries = Mutex<[String: Entry]>([:])
    private let capacity: Int
    private let now: @Sendable () -> Date

    init(capacity: Int = 10_000, now: @escaping @Sendable () -> Date = { Date() }) {
        self.capacity = capacity
        self.now = now
    }

    /// What `token` was verified to say, unless it has expired since (or was never verified).
    func lookUp(_ token: String) -> Entry? {
        let now = now()
        return entries.withLock { entries in
            guard let entry = entries[token] else { return nil }
            guard entry.expires > now else {
                entries[token] = nil
                return nil
            }
            return entry
        }
    }

    func remember(_ token: String, _ entry: Entry) {
        let now = now()
        entries.withLock { entries in
            if entries.count >= capacity {
                entries = entries.filter { $0.value.expires > now }
                if entries.count >= capacity / 2 { entries.removeAll(keepingCapacity: true) }
            }
            entries[token] = entry
        }
    }

    var count: Int { entries.withLock { $0.count } }
}
