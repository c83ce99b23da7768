/// What a user is allowed to be on the platform.
public enum Role: String, Hashable, Sendable, Codable, CaseIterable {
    /// The platform's operators: every store, every action.
    case admin
    /// A store's owner.
    case owner
    /// A store's manager.
    case manager
    /// A store's staff member (cashier, kitchen, …).
    case staff
    /// One of the platform's couriers; belongs to no store.
    case courier
    /// A customer placing or following orders.
    case customer
    /// The platform's operations staff: orders and their actions, couriers and their
    /// availability, applications to join, across stores; no money, no passwords.
    case supervisor
    /// The platform's support desk: reads orders, customers and their notifications across
    /// stores, cancels orders with a reason, resends a notification.
    case support
    /// The platform's accountant: reads every store's payments, refunds, receipts, statistics,
    /// balances and payouts, and records payouts.
    case accountant
    /// The platform's social-media staff: stores' public profiles and products' names,
    /// descriptions and images.
    case socialMedia = "social_media"

    /// Whether users of this role belong to exactly one store.
    public var isStoreRole: Bool {
        switch self {
        case .owner, .manager, .staff: return true
        case .admin, .courier, .customer, .supervisor, .support, .accountant, .socialMedia: return false
        }
    }

    /// Whether this is one of the platform's staff roles below admin, which only admins create.
    public var isPlatformStaff: Bool {
        switch self {
        case .supervisor, .support, .accountant, .socialMedia: return true
        case .admin, .owner, .manager, .staff, .courier, .customer: return false
        }
    }
}
