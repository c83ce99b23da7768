extension User {
    /// The account as kept once its holder closed it: deactivated, named for its role alone
    /// ("Deleted customer", "Deleted courier"), with no phone or photo, and an address at the
    /// reserved `.invalid` domain in place of theirs, which is free to sign up with again.
    public func erased() -> User {
        var user = self
        user.name = "Deleted \(role.rawValue)"
        user.email = "deleted-\(id)@deleted.invalid"
        user.phone = nil
        user.photoURL = nil
        user.active = false
        user.onDuty = false
        user.emailVerified = false
        return user
    }
}
