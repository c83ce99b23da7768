/// The gateway's identity events, on `orderly:events:identity`, each with the user as its
/// payload (never a password hash).
public enum IdentityEvents {
    public static let service = "identity"
    public static let userCreated = "user.created"
    public static let userUpdated = "user.updated"
}
