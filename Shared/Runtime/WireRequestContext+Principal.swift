public import Domain
public import Wire

extension WireRequestContext {
    /// The end user the call is made for; a call without one is refused as unauthenticated.
    public func requirePrincipal() throws(OrderlyError) -> Principal {
        guard let principal else { throw OrderlyError(.unauthenticated, "this method needs the caller's principal") }
        return principal
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

extension Principal {
    /// The store a write lands in: a store user's own (naming another is refused), or the one an
    /// admin names. Other roles may not write store data.
    public func targetStore(_ requested: StoreID?) throws(OrderlyError) -> StoreID {
        switch role {
        case .admin:
            guard let requested else { throw OrderlyError.invalidFields(["store_id": "is required for admins"]) }
            return requested
        case .owner, .manager, .staff:
            guard let own = storeID else { throw OrderlyError(.permissionDenied, "this account has no store") }
            if let requested, requested != own {
                throw OrderlyError(.notFound, "no store \(requested)")
            }
            return own
        case .courier, .customer:
            throw OrderlyError(.permissionDenied, "a \(role.rawValue) cannot do this")
        }
    }
}
