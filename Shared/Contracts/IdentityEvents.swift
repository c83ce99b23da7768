/// The gateway's identity events, on `orderly:events:identity`, each with the user as its
/// payload (never a password hash).
public enum IdentityEvents {
    public static let service = "identity"
    public static let userCreated = "user.created"
    public static let userUpdated = "user.updated"
}

/// The gateway as the services know it: the caller that states which user a call is for.
public enum GatewayCaller {
    public static let service = "gateway"
}
