public import Storage

extension IdempotencyStore {
    /// Runs a write in one transaction; with an `Idempotency-Key` at most once per key within
    /// `scope` (a repeat with the same request gets the stored response, a different request
    /// is refused). The request is hashed in a canonical form: its JSON with sorted keys.
    public func write<Request: Encodable & Sendable, Response: Codable & Sendable>(
        key: String?, scope: String, request: Request,
        _ body: @Sendable @escaping (Transaction) async throws -> Response
    ) async throws -> Response {
        guard let key else { return try await database.transaction(body) }
        let idempotent = try IdempotentRequest(
            scope: scope, key: key, request: Array(try StoredDocument.text(request).utf8))
        return try await perform(idempotent, body).response
    }
}
