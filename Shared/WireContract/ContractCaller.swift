public import Domain

/// What calls a service's Wire methods for a user, as far as a contract's own clients need
/// (`StockHolds`): the transport-free face of Wire's `WireCaller`, which every caller has.
public protocol ContractCaller: Sendable {
    /// Calls `method` for `principal` and decodes its response.
    func call<Request, Response>(
        _ method: WireMethod<Request, Response>, _ request: Request, for principal: Principal?
    ) async throws -> Response
}
