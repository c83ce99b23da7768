import Contracts
import Domain
import Events
import Redis
import Runtime
import ServiceLifecycle
import Storage

/// The store users as the gateway's identity events tell them: names for receipts, and the
/// role and store that decide who may clock whom in. Each event is applied once; an older
/// version of a user than the one known changes nothing; one who leaves the store roles is
/// forgotten.
struct StaffRoster: Sendable {
    let database: Database
    let payments: PaymentsRepository

    static let consumer = "payments.staff"

    func consumer(_ environment: ServiceEnvironment) -> any Service {
        environment.consumer(
            of: IdentityEvents.service, group: PaymentsAPI.service,
            types: [IdentityEvents.userCreated, IdentityEvents.userUpdated]
        ) { try await apply($0) }
    }

    func apply(_ event: DomainEvent) async throws {
        let user = try event.payload.decode(as: User.self)
        let payments = self.payments
        try await database.applyOnce(event, consumer: Self.consumer) { try await payments.remember(user, in: $0) }
    }
}
