import Contracts
import Domain
import Events
import Runtime
import Storage

/// Keeps the staff roster (`ShiftsRepository`), the store users as the gateway's identity events
/// tell them: names for receipts, and the role and store that decide who may clock whom in.
/// Each event is applied once; an older version of a user than the one known changes nothing;
/// one who leaves the store roles is forgotten.
struct StaffRosterFollower: EventFollower {
    static let producer = GatewayAPI.service
    static let types = [GatewayAPI.Events.userCreated, GatewayAPI.Events.userUpdated]
    /// The name its applied events are recorded under (the inbox).
    static let consumer = "payments.staff"

    let database: Database
    let shifts: ShiftsRepository

    func apply(_ event: DomainEvent) async throws {
        let user = try event.payload.decode(as: User.self)
        let shifts = self.shifts
        try await database.applyOnce(event, consumer: Self.consumer) { try await shifts.remember(user, in: $0) }
    }
}
