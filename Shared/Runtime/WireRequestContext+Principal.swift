public import Domain
public import Wire

extension WireRequestContext {
    /// The end user the call is made for; a call without one is refused as unauthenticated.
    public func requirePrincipal() throws(OrderlyError) -> Principal {
        guard let principal else { throw OrderlyError(.unauthenticated, "this method needs the caller's principal") }
        return principal
    }

    /// The caller, or nil for a visitor without an account (stores and menus are read by
    /// visitors too): a call without a principal is a visitor's only when `gateway` sends it,
    /// as every other service names its caller.
    public func principalOrVisitor(gateway: String) throws(OrderlyError) -> Principal? {
        guard principal == nil, callerService == gateway else { return try requirePrincipal() }
        return nil
    }

    /// The idempotency key a write must carry; its absence is a 400 naming the
    /// `Idempotency-Key` header.
    public func requireIdempotencyKey(for action: String) throws(OrderlyError) -> String {
        guard let idempotencyKey else {
            throw OrderlyError(
                .invalidArgument, "\(action) needs an Idempotency-Key header",
                details: ["Idempotency-Key": .string("is required")])
        }
        return idempotencyKey
    }
}
