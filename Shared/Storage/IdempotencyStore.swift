import Crypto
public import Domain
public import Foundation
import SQLKit

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
        self.requestHash = SHA256.hash(data: request).withUnsafeBytes { Hex.lowercased($0) }
    }

    /// The key's name in the in-process set of running requests (SQLite).
    var lockKey: String { scope + "\u{0}" + key }

    /// The key's number for PostgreSQL's advisory lock.
    var lockID: Int64 { Transaction.advisoryKey(lockKey) }
}

/// What an idempotent write answered, and whether that answer was stored from an earlier run.
public struct IdempotentResult<Response: Sendable>: Sendable {
    public var response: Response
    public var replayed: Bool
}

/// Idempotency records: the first request with a key runs and its response is
/// stored in the same transaction as its effect; the same key with the same request replays
/// that response; with another request it is refused (`idempotency_key_reused`); while the
/// first still runs it is refused (`request_in_progress`). Records expire after `retention`.
///
/// A request is one transaction: it holds its key while it runs (a transaction-scoped advisory
/// lock on PostgreSQL, seen by every replica; on SQLite, whose file one process owns, a set of
/// keys in that process), looks for a record, and either replays it or runs `body` and stores
/// the response. Nothing outlives a request that fails or a process that dies: the transaction
/// rolls back and the lock goes with it, so the key can simply be used again.
public struct IdempotencyStore: Sendable {
    public let database: Database
    public let retention: Duration

    public init(database: Database, retention: Duration = .seconds(7 * 24 * 3600)) {
        self.database = database
        self.retention = retention
    }

    /// Runs `body` at most once per key (within the retention) and answers with its response.
    public func perform<Response: Codable & Sendable>(
        _ request: IdempotentRequest, _ body: @Sendable (Transaction) async throws -> Response
    ) async throws -> IdempotentResult<Response> {
        switch try await perform(request, recording: { $0 }, body) {
        case .executed(let response): return IdempotentResult(response: response, replayed: false)
        case .replay(let response): return IdempotentResult(response: response, replayed: true)
        }
    }

    /// Runs `body` at most once per key and keeps `record(response)` as what a repeat is told:
    /// the response itself, or only what finds it again (an id) where a repeat is answered with
    /// the resource as it is by then.
    func perform<Response: Sendable, Record: Codable & Sendable>(
        _ request: IdempotentRequest, recording record: @Sendable (Response) -> Record,
        _ body: @Sendable (Transaction) async throws -> Response
    ) async throws -> Outcome<Response, Record> {
        let lockKey = request.lockKey
        guard database.beginRequest(lockKey) else { throw Self.inProgress }
        defer { database.endRequest(lockKey) }
        let outcome = try await database.transaction { transaction -> Outcome<Response, String> in
            if transaction.kind == .postgres {
                let row = try await transaction.sql.raw(
                    "SELECT pg_try_advisory_xact_lock(\(bind: request.lockID)) AS locked"
                ).first()
                guard try row?.decode(column: "locked", as: Bool.self) == true else { throw Self.inProgress }
            }
            let now = Date.nowMilliseconds
            let stored = try await transaction.execute(
                "SELECT request_hash, response, expires_at FROM orderly_idempotency WHERE scope = $1 AND idempotency_key = $2",
                [.text(request.scope), .text(request.key)]
            ).first
            if let stored, try stored.decode(column: "expires_at", as: Int64.self) > now {
                guard try stored.decode(column: "request_hash", as: String.self) == request.requestHash else {
                    throw OrderlyError(
                        .idempotencyKeyReused, "this Idempotency-Key was already used with a different request")
                }
                return .replay(try stored.decode(column: "response", as: String.self))
            }
            let response = try await body(transaction)
            // A record past its retention is replaced.
            try await transaction.execute(
                """
                INSERT INTO orderly_idempotency (scope, idempotency_key, request_hash, response, created_at, expires_at)
                VALUES ($1, $2, $3, $4, $5, $6)
                ON CONFLICT (scope, idempotency_key) DO UPDATE SET request_hash = excluded.request_hash,
                    response = excluded.response, created_at = excluded.created_at, expires_at = excluded.expires_at
                """,
                [
                    .text(request.scope), .text(request.key), .text(request.requestHash),
                    .text(try StoredDocument.text(record(response))), .integer(now),
                    .integer(now + Int64(retention.wholeMilliseconds)),
                ])
            return .executed(response)
        }
        switch outcome {
        case .executed(let response): return .executed(response)
        case .replay(let stored): return .replay(try StoredDocument.decode(Record.self, from: stored))
        }
    }

    /// A keyed write's outcome: it ran now, or an earlier run's record.
    enum Outcome<Response: Sendable, Record: Sendable>: Sendable {
        case executed(Response)
        case replay(Record)
    }

    private static let inProgress = OrderlyError(
        .requestInProgress, "a request with this Idempotency-Key is still in progress; retry later")

    /// Deletes records past their retention; returns how many.
    @discardableResult
    public func removeExpired() async throws -> Int {
        try await database.deleteRows(of: "orderly_idempotency", where: "expires_at", below: Date.nowMilliseconds + 1)
    }
}

extension IdempotencyStore {
    /// Runs a write in one transaction; with an `Idempotency-Key` at most once per key, `caller`
    /// and `scope` (the operation and what it acts on): a repeat by the same caller with the
    /// same request gets the stored response, a different request is refused. Keys are the
    /// caller's own, so no one is answered with what another was told. The request is hashed in
    /// a canonical form: its JSON with sorted keys.
    public func write<Request: Encodable & Sendable, Response: Codable & Sendable>(
        key: String?, caller: UserID, scope: String, request: Request,
        _ body: @Sendable @escaping (Transaction) async throws -> Response
    ) async throws -> Response {
        try await write(
            key: key, caller: caller, scope: scope, request: request,
            replay: Replay(reference: { $0 }, answer: { $0 }), body)
    }

    /// The same, for a write whose repeat must be answered as things are by then, because what
    /// the caller may see can change meanwhile (a courier who claimed an order may have released
    /// it): the record keeps only `replay.reference` of the response (an id), and a repeat is
    /// answered by `replay.answer` from it, which checks access again (or throws).
    public func write<Request: Encodable & Sendable, Response: Sendable, Reference: Codable & Sendable>(
        key: String?, caller: UserID, scope: String, request: Request, replay: Replay<Response, Reference>,
        _ body: @Sendable @escaping (Transaction) async throws -> Response
    ) async throws -> Response {
        guard let key else { return try await database.transaction(body) }
        let request = try IdempotentRequest(caller: caller, scope: scope, key: key, request: request)
        switch try await perform(request, recording: replay.reference, body) {
        case .executed(let response): return response
        case .replay(let reference): return try await replay.answer(reference)
        }
    }
}

extension IdempotencyStore {
    /// Whether `caller` made this keyed request already (the same key and request, within the
    /// retention): a repeat, which `write` answers from its record. For a write with a side
    /// effect before its transaction (stock reserved in another service), so that a repeat does
    /// not do it again.
    public func isRepeat(key: String?, caller: UserID, scope: String, request: some Encodable & Sendable)
        async throws -> Bool
    {
        guard let key else { return false }
        let request = try IdempotentRequest(caller: caller, scope: scope, key: key, request: request)
        return try await database.read { sql in
            guard
                let row = try await sql.raw(
                    """
                    SELECT request_hash, expires_at FROM orderly_idempotency
                    WHERE scope = \(bind: request.scope) AND idempotency_key = \(bind: request.key)
                    """
                ).first()
            else { return false }
            return try row.decode(column: "expires_at", as: Int64.self) > Date.nowMilliseconds
                && row.decode(column: "request_hash", as: String.self) == request.requestHash
        }
    }
}

/// How a keyed write's repeat is answered when it must be answered as things are by then: what
/// of the response the record keeps, and how the answer is made from it.
public struct Replay<Response: Sendable, Reference: Codable & Sendable>: Sendable {
    let reference: @Sendable (Response) -> Reference
    let answer: @Sendable (Reference) async throws -> Response

    public init(
        reference: @escaping @Sendable (Response) -> Reference,
        answer: @escaping @Sendable (Reference) async throws -> Response
    ) {
        self.reference = reference
        self.answer = answer
    }
}

extension IdempotentRequest {
    /// `caller`'s request under `scope`, hashed in its canonical form (JSON, keys sorted).
    init(caller: UserID, scope: String, key: String, request: some Encodable) throws {
        try self.init(scope: "\(caller):\(scope)", key: key, request: Array(try StoredDocument.text(request).utf8))
    }
}
