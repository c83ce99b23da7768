import Contracts
import Domain
import Foundation
import SQLKit
import Storage
import Wire

/// The payments service's Wire methods of shifts: clocking in and out, each staff member's cash
/// drawer, and the store's rule that staff be clocked in to take shifts.
struct ShiftsHandlers: Sendable {
    let database: Database

    var shifts: ShiftsRepository { ShiftsRepository(database: database) }
    var idempotency: IdempotencyStore { IdempotencyStore(database: database) }

    func register(in router: inout WireRouter) {
        router.register(PaymentsAPI.clockIn) { request, context in
            try await clockIn(request, principal: context.requirePrincipal(), idempotencyKey: context.idempotencyKey)
        }
        router.register(PaymentsAPI.clockOut) { request, context in
            try await clockOut(request, principal: context.requirePrincipal(), idempotencyKey: context.idempotencyKey)
        }
        router.register(PaymentsAPI.listShifts) { request, context in
            let principal = try context.requirePrincipal()
            guard AccessPolicy(principal).canSeeTakings(of: request.storeID) else {
                throw OrderlyError(.notFound, "no store \(request.storeID)")
            }
            return try await shifts.shifts(
                request, after: try request.page.cursor.map { try KeysetCursor(token: $0) },
                limit: try KeysetCursor.limit(request.page.limit))
        }
        router.register(PaymentsAPI.openShifts) { request, _ in
            try await shifts.openShifts(of: Array(request.userIDs.prefix(PageRequest.maximumLimit)))
        }
    }

    /// Opens a shift for the user (the caller when none is named), with the cash the drawer
    /// starts with; one already open is 409 `already_clocked_in`.
    func clockIn(_ request: ClockRequest, principal: Principal, idempotencyKey: String?) async throws -> Shift {
        let opening = try request.validatedForClockIn()
        let shifts = self.shifts
        return try await idempotency.write(
            key: idempotencyKey, caller: principal.userID, scope: "shifts.shifts.clock_in", request: request
        ) { transaction in
            let (user, store) = try await Self.clockable(request.userID, by: principal, shifts, in: transaction)
            try await transaction.lock(.shift(of: user))
            if try await shifts.openShift(of: user, in: transaction.sql) != nil {
                throw OrderlyError(.alreadyClockedIn, "the user is clocked in already")
            }
            var shift = Shift(
                id: ShiftID(), storeID: store, userID: user, clockedInAt: Date.currentMillisecond,
                clockedInBy: principal.userID, openingCash: opening)
            shift.staffName = try await shifts.staffMember(user, in: transaction.sql)?.name
            try await shifts.insert(shift, in: transaction)
            transaction.publish(try PaymentsEvents.shift(PaymentsAPI.Events.clockedIn, shift))
            return shift
        }
    }

    /// Ends the user's open shift with the cash counted, recording what the drawer should hold
    /// and the difference; none open is 422 `not_clocked_in`.
    func clockOut(_ request: ClockRequest, principal: Principal, idempotencyKey: String?) async throws -> Shift {
        let counted = try request.validatedForClockOut()
        let shifts = self.shifts
        return try await idempotency.write(
            key: idempotencyKey, caller: principal.userID, scope: "shifts.shifts.clock_out", request: request
        ) { transaction in
            let (user, _) = try await Self.clockable(request.userID, by: principal, shifts, in: transaction)
            try await transaction.lock(.shift(of: user))
            guard var shift = try await shifts.openShift(of: user, in: transaction.sql) else {
                throw OrderlyError(.notClockedIn, "the user is not clocked in")
            }
            shift.clockOut(at: Date.currentMillisecond, by: principal.userID, counted: counted)
            try await shifts.update(shift, in: transaction)
            transaction.publish(try PaymentsEvents.shift(PaymentsAPI.Events.clockedOut, shift))
            return shift
        }
    }

    /// The user a clock request is for, and their store, when the caller may clock them:
    /// themselves always (a store user), another only as `AccessPolicy.canClock` allows, known
    /// from the identity events; anyone else is 404.
    static func clockable(
        _ requested: UserID?, by principal: Principal, _ shifts: ShiftsRepository, in transaction: Transaction
    ) async throws -> (UserID, StoreID) {
        let policy = AccessPolicy(principal)
        guard let requested, requested != principal.userID else {
            guard policy.canClock(user: principal.userID, role: principal.role, store: principal.storeID),
                let store = principal.storeID
            else { throw OrderlyError(.permissionDenied, "only a store's users clock in") }
            return (principal.userID, store)
        }
        guard let member = try await shifts.staffMember(requested, in: transaction.sql), member.active,
            policy.canClock(user: member.id, role: member.role, store: member.storeID), let store = member.storeID
        else { throw OrderlyError(.notFound, "no user \(requested) you may clock in or out") }
        return (member.id, store)
    }
}
