import Domain

/// A store user as the payments service knows them.
struct StaffMember: Sendable {
    var id: UserID
    var role: Role
    var storeID: StoreID?
    var name: String
    var active: Bool
}
