import Domain
import Storage

/// The gateway's locks.
extension Lock {
    /// An e-mail address, checked and taken by a sign-up, an application or an account made by
    /// an admin, one at a time.
    static func email(_ address: String) -> Lock { Lock("gateway.users.email", address) }
    /// An application to join, while it is decided.
    static func application(_ id: ApplicationID) -> Lock { Lock("gateway.application", id) }
    /// A user's saved addresses.
    static func addresses(of owner: UserID) -> Lock { Lock("gateway.addresses", owner) }
    /// A user's sessions (refresh-token families), which refreshing, revoking and ending them
    /// take in turn.
    static func sessions(of user: String) -> Lock { Lock("gateway.sessions", user) }
    /// A shared till, which a sign-in on it and its revocation take in turn: no session opened
    /// on it outlives its revocation.
    static func till(_ id: TillID) -> Lock { Lock("gateway.till", id) }
}
