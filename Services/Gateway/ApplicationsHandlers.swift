import Contracts
import Domain
import Foundation
import Runtime
import Storage
import Wire

/// The gateway's own methods of applications to join the platform: made without an account
/// (limited per client address as sign-ups are), read and decided by the platform. Approving a
/// store's application opens the store through the catalog, then makes its owner; a courier's
/// makes the courier; each with the password chosen when applying, and `application.approved`
/// tells the new account. The routes call them.
struct ApplicationsHandlers: Sendable {
    let database: Database
    let applications: ApplicationsRepository
    let users: UsersRepository
    let passwords: PasswordHasher
    let limiter: LoginLimiter
    let applicationsPerAddressPerHour: Int
    let catalog: any WireCaller
    /// Mails an applicant the link that verifies their address, which approval waits for.
    let verifications: EmailVerificationHandlers

    /// A new application, pending, mailed the link that verifies its address; an e-mail address
    /// of an account or of a pending application is 409 `already_exists` naming `email`.
    func apply(_ draft: ApplicationDraft, address: IPAddress?) async throws -> JoinApplication {
        try await limiter.admitApplication(address: address, perHour: applicationsPerAddressPerHour)
        let valid = try draft.validated()
        let hash = try await passwords.hash(valid.password)
        let application = JoinApplication(
            id: ApplicationID(), kind: valid.kind, name: valid.name, email: valid.email, phone: valid.phone,
            locale: valid.locale, store: valid.store, vehicle: valid.vehicle, createdAt: Date.currentMillisecond)
        let (applications, users, email, verifications) = (
            self.applications, self.users, valid.email, self.verifications
        )
        let made = try await database.transaction { transaction in
            // The lock new accounts take, so an address cannot be applied with and signed up at once.
            try await transaction.lock(.email(email))
            if try await users.isTaken(email: email, in: transaction.sql) { throw Self.taken }
            if try await applications.isPending(email: email, in: transaction.sql) { throw Self.taken }
            try await applications.insert(application, passwordHash: hash, in: transaction)
            try await verifications.send(
                for: .application(application.id),
                to: MailTexts.Recipient(email: email, name: application.name, locale: application.locale),
                in: transaction)
            return application
        }
        verifications.mailed()
        return made
    }

    private static let taken = OrderlyError(
        .alreadyExists, "an account or an application uses this e-mail address",
        details: ["email": .string("is taken")])

    func list(status: JoinApplication.Status?, page: PageRequest, by principal: Principal) async throws
        -> Page<JoinApplication>
    {
        try Self.checkReviewer(principal)
        let cursor = try page.cursor.map { cursor throws(OrderlyError) in try KeysetCursor(token: cursor) }
        return try await applications.list(
            status: status, after: cursor, limit: try KeysetCursor.limit(page.limit), counting: page.counting)
    }

    func get(_ id: ApplicationID, by principal: Principal) async throws -> JoinApplication {
        try Self.checkReviewer(principal)
        guard let (application, _) = try await database.read({ try await applications.find(id, in: $0) }) else {
            throw OrderlyError(.notFound, "no application \(id)")
        }
        return application
    }

    /// Approves a pending application: for a store's, opens the store with the id chosen when
    /// it was made (an approval tried again finds it open), then makes the account with the
    /// chosen password, in one transaction with the decision. The applicant's address must be
    /// verified first (422 `email_unverified`); the account made has it verified.
    func approve(_ id: ApplicationID, by principal: Principal) async throws -> JoinApplication {
        let pending = try await get(id, by: principal)
        try pending.checkPending()
        try Self.checkVerified(pending)
        if let store = pending.storeID, let details = pending.store {
            do {
                _ = try await catalog.call(
                    CatalogAPI.createStore,
                    StoreDraft(
                        id: store, name: details.name, address: details.address, phone: details.phone,
                        timezone: details.timezone, cuisine: details.cuisine),
                    options: WireCallOptions(principal: principal))
            } catch let error as OrderlyError where error.code == .conflict && error.details?["id"] != nil {
                // Opened by an earlier attempt at this approval.
            }
        }
        let (applications, book) = (self.applications, UserBook(database: database))
        return try await database.transaction { transaction in
            try await transaction.lock(.application(id))
            guard let (found, hash) = try await applications.find(id, in: transaction.sql) else {
                throw OrderlyError(.notFound, "no application \(id)")
            }
            var application = found
            try Self.checkVerified(application)
            let now = Date.currentMillisecond
            try application.decide(.approved, by: principal.userID, at: now)
            let user = User(
                id: UserID(), email: application.email, name: application.name, phone: application.phone,
                role: application.role, storeID: application.storeID, staffRole: nil, active: true,
                emailVerified: true, onDuty: false, locale: application.locale, version: 1, createdAt: now,
                updatedAt: now)
            try await book.open(user, passwordHash: hash, takenReason: .emailTaken, in: transaction)
            application.userID = user.id
            try await applications.update(application, in: transaction)
            transaction.publish(try GatewayEvents.applicationApproved(application))
            return application
        }
    }

    /// Rejects a pending application for `reason`, which the applicant is told at sign-in.
    func reject(_ id: ApplicationID, _ request: ApplicationRejection, by principal: Principal) async throws
        -> JoinApplication
    {
        try Self.checkReviewer(principal)
        let reason = try request.validated()
        let applications = self.applications
        return try await database.transaction { transaction in
            try await transaction.lock(.application(id))
            guard var (application, _) = try await applications.find(id, in: transaction.sql) else {
                throw OrderlyError(.notFound, "no application \(id)")
            }
            try application.decide(.rejected, by: principal.userID, reason: reason, at: Date.currentMillisecond)
            try await applications.update(application, in: transaction)
            return application
        }
    }

    /// The refusal of a sign-in with the address and password of an application not approved
    /// (403 `application_pending`, or `application_rejected` with the reason); nil when there
    /// is none, or the password is not the one chosen. The hash is checked either way, so the
    /// answer takes as long. A pending application whose address is not verified yet is mailed
    /// the link again (within its hourly allowance).
    func refusal(email: String, password: String) async throws -> OrderlyError? {
        let found = try await applications.undecidedOrRejected(email: email)
        guard try await passwords.verify(password, against: found?.passwordHash ?? passwords.decoy),
            let application = found?.0
        else { return nil }
        if application.status == .rejected {
            return OrderlyError(
                .applicationRejected, "the application to join was rejected: \(application.reason ?? "")",
                details: ["reason": .string(application.reason ?? "")])
        }
        guard application.emailVerified else {
            await verifications.resend(to: application)
            return OrderlyError(
                .applicationPending,
                "the application to join waits for its e-mail address to be verified: follow the link mailed to it")
        }
        return OrderlyError(
            .applicationPending, "the application to join is waiting for the platform's decision")
    }

    /// Refuses to decide for an applicant whose address is not shown to be theirs.
    private static func checkVerified(_ application: JoinApplication) throws(OrderlyError) {
        guard application.emailVerified || application.status != .pending else {
            throw OrderlyError(
                .emailUnverified, "the applicant has not verified their e-mail address yet",
                details: ["email": .string("is not verified")])
        }
    }

    private static func checkReviewer(_ principal: Principal) throws(OrderlyError) {
        guard AccessPolicy(principal).canReviewApplications else {
            throw OrderlyError(.permissionDenied, "only the platform reviews applications")
        }
    }
}
