internal import Crypto
public import Domain
public import Foundation
internal import SQLKit

/// A write that carries an `Idempotency-Key`: where the key lives (the caller's store and the
/// operation), the key, and a hash of the request it came with.
public struct IdempotentRequest: Sendable, Hashable {
    public var scope: String
    public var key: String
    public var requestHash: String

    /// Checks the key (1 to 255 visible ASCII characters) and hashes `request`, the request's
    /// canonical bytes (its method, path and body).
    public init(scope: String, key: String, request: some DataProtocol) throws(OrderlyError) {
        guard (1...255).contains(key.utf8.count), key.utf8.allSatisfy({ (0x21...0x7e).contains($0) }) else {
            throw OrderlyError.invalidFields(["Idempotency-Key": "must be 1 to 255 visible ASCII characters"])
        }
        self.scope = scope
        self.key = key
        self.requestHash = SHA256.hash(data: request).map { String(format: "%02x", $0) }.joined()
    }
}

/// What an idempotent write answered, and whether that answer was stored from an earlier run.
public struct IdempotentResult<Response: Sendable>: Sendable {
    public var response: Response
    public var replayed: Bool
}

/// Idempotency records (DESIGN §5): the first request with a key runs and its response is
/// stored in the same transaction as its effect; the same key with the same request replays
/// that response; with another request it is refused (`idempotency_key_reused`); while the
/// first still runs it is refused (`request_in_progress`).
///
/// A request first claims its key in a short transaction of its own, so that a concurrent one
/// can see the claim and be refused rather than wait. A claim is a lease: when its process died
/// mid-request the key becomes usable again after `lease`. A request that fails releases its
/// claim and stores nothing, so it can be retried. Records expire after `retention`.
public struct IdempotencyStore: Sendable {
    public let database: Database
    public let retention: Duration
    public let lease: Duration

    private static let encoder = JSONEncoder()
    private static let decoder = JSONDecoder()

    public init(database: Database, retention: Duration = .seconds(7 * 24 * 3600), lease: Duration = .seconds(60)) {
        self.database = database
        self.retention = retention
        self.lease = lease
    }

    /// Runs `body` at most once per key (within the retention) and answers with its response.
    public func perform<Response: Codable & Sendable>(
        _ request: IdempotentRequest, _ body: @Sendable (Transaction) async throws -> Response
    ) async throws -> IdempotentResult<Response> {
        let claim: String
        switch try await claimOrReplay(request) {
        case .replay(let stored):
            return IdempotentResult(
                response: try Self.decoder.decode(Response.self, from: Data(stored.utf8)), replayed: true)
        case .claimed(let token):
            claim = token
        }
        do {
            let response = try await database.transaction { transaction in
                let response = try await body(transaction)
                let stored = String(decoding: try Self.encoder.encode(response), as: UTF8.self)
                let completed = try await transaction.sql.raw(
                    """
                    UPDATE orderly_idempotency SET response = \(bind: stored), claim = NULL, locked_until = NULL
                    WHERE scope = \(bind: request.scope) AND idempotency_key = \(bind: request.key) AND claim = \(bind: claim)
                    RETURNING scope
                    """
                ).first()
                guard completed != nil else {
                    // The lease ran out and another request took the key over: undo this one.
                    throw Self.inProgress
                }
                return response
            }
            return IdempotentResult(response: response, replayed: false)
        } catch {
            try? await database.transaction { transaction in
                try await transaction.sql.raw(
                    """
                    DELETE FROM orderly_idempotency
                    WHERE scope = \(bind: request.scope) AND idempotency_key = \(bind: request.key) AND claim = \(bind: claim)
                    """
                ).run()
            }
            throw error
        }
    }

    private enum Claim: Sendable {
        case claimed(String)
        case replay(String)
    }

    private func claimOrReplay(_ request: IdempotentRequest) async throws -> Claim {
        // Look first without taking the write lock: a replay or a refusal then never waits
        // for other writes (on SQLite, for the very request that holds the key).
        let seen = try await database.read { sql in
            try await sql.raw(
                """
                SELECT request_hash, locked_until, response, expires_at FROM orderly_idempotency
                WHERE scope = \(bind: request.scope) AND idempotency_key = \(bind: request.key)
                """
            ).first()
        }
        if let seen, let decided = try decide(seen, for: request, now: Date.nowMilliseconds) { return decided }

        let token = UUID().uuidString.lowercased()
        return try await database.transaction { transaction in
            let now = Date.nowMilliseconds
            let lockedUntil = now + Int64(lease.wholeMilliseconds)
            let expiresAt = now + Int64(retention.wholeMilliseconds)
            let inserted = try await transaction.sql.raw(
                """
                INSERT INTO orderly_idempotency
                    (scope, idempotency_key, request_hash, claim, locked_until, created_at, expires_at)
                VALUES (\(bind: request.scope), \(bind: request.key), \(bind: request.requestHash), \(bind: token),
                    \(bind: lockedUntil), \(bind: now), \(bind: expiresAt))
                ON CONFLICT (scope, idempotency_key) DO NOTHING RETURNING scope
                """
            ).first()
            if inserted != nil { return .claimed(token) }
            // Someone else has the key: look again, under lock, now that their claim committed.
            let existing = try await transaction.sql.raw(
                """
                SELECT request_hash, locked_until, response, expires_at FROM orderly_idempotency
                WHERE scope = \(bind: request.scope) AND idempotency_key = \(bind: request.key)\(transaction.forUpdate)
                """
            ).first()
            guard let existing else { throw Self.inProgress }
            if let decided = try decide(existing, for: request, now: now) { return decided }
            // Expired, or claimed by a request whose process died: start afresh.
            try await transaction.sql.raw(
                """
                UPDATE orderly_idempotency SET request_hash = \(bind: request.requestHash), claim = \(bind: token),
                    locked_until = \(bind: lockedUntil), response = NULL, created_at = \(bind: now), expires_at = \(bind: expiresAt)
                WHERE scope = \(bind: request.scope) AND idempotency_key = \(bind: request.key)
                """
            ).run()
            return .claimed(token)
        }
    }

    /// What an existing record means for `request`: a replay, a refusal (thrown), or `nil` when
    /// the key may be taken over (expired, or its claim's lease ran out).
    private func decide(_ record: any SQLRow, for request: IdempotentRequest, now: Int64) throws -> Claim? {
        guard try record.decode(column: "expires_at", as: Int64.self) > now else { return nil }
        guard try record.decode(column: "request_hash", as: String.self) == request.requestHash else {
            throw OrderlyError(
                .failedPrecondition, "this Idempotency-Key was already used with a different request",
                reason: "idempotency_key_reused")
        }
        if let stored = try record.decode(column: "response", as: String?.self) { return .replay(stored) }
        if let until = try record.decode(column: "locked_until", as: Int64?.self), until > now { throw Self.inProgress }
        return nil
    }

    private static let inProgress = OrderlyError(
        .conflict, "a request with this Idempotency-Key is still in progress; retry later",
        reason: "request_in_progress")

    /// Deletes records past their retention.
    public func removeExpired() async throws {
        try await database.transaction { transaction in
            try await transaction.sql.raw(
                "DELETE FROM orderly_idempotency WHERE expires_at <= \(bind: Date.nowMilliseconds)"
            ).run()
        }
    }
}
