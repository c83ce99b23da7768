import Contracts
import Domain
import Foundation
import Storage
import Wire

/// The notifications service's Wire method of a store's activity feed: its owners, managers and
/// admins read it after a cursor, in their own language.
struct ActivityHandlers: Sendable {
    let activity: ActivityRepository

    init(database: Database) {
        self.activity = ActivityRepository(database: database)
    }

    func register(in router: inout WireRouter) {
        router.register(NotificationsAPI.activity) { request, context in
            try await list(request, principal: context.requirePrincipal())
        }
    }

    /// The store's activity after the cursor, oldest first.
    func list(_ request: ActivityRequest, principal: Principal) async throws -> ActivityPage {
        guard AccessPolicy(principal).canSeeActivity(of: request.storeID) else {
            throw OrderlyError(.notFound, "no store \(request.storeID)")
        }
        let limit = try KeysetCursor.limit(request.limit)
        guard request.after >= 0 else { throw OrderlyError.invalidFields(["after": "must be 0 or more"]) }
        let entries = try await activity.list(
            of: request.storeID, after: request.after, limit: limit + 1, for: principal.userID)
        let page = Array(entries.prefix(limit))
        return ActivityPage(
            data: page, nextCursor: page.last?.seq ?? request.after, hasMore: entries.count > limit)
    }
}
