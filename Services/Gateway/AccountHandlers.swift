import Contracts
import Domain
import Foundation
import Runtime
import Storage
import Wire

/// A person's own account as a whole: everything the suite holds about them, exported as one
/// document, and closing it. Customers and couriers close their own; anyone else is told who
/// closes theirs. The routes call them.
struct AccountHandlers: Sendable {
    let database: Database
    let users: UsersRepository
    let passwords: PasswordHasher
    /// Counts the password given to close an account as a sign-in attempt.
    let limiter: LoginLimiter
    let sessions: Sessions
    let orders: any WireCaller
    let payments: any WireCaller
    let notifications: any WireCaller

    /// What an export holds: the account, and what each service keeps of the person.
    struct Export: Encodable, Sendable {
        var exportedAt: Date
        var user: User
        /// A customer's delivery addresses.
        var addresses: [DeliveryAddress]
        /// A customer's orders; the orders a courier carried.
        var orders: [Order]
        /// Payments made out to them, and those they took (a courier's cash at the door).
        var payments: [Payment]
        /// A courier's balances and the ledger entries that moved them.
        var balances: [CurrencyBalance]?
        var ledgerEntries: [AccountEntry]?
        var notifications: [UserNotification]

        enum CodingKeys: String, CodingKey {
            case user, addresses, orders, payments, balances, notifications
            case exportedAt = "exported_at"
            case ledgerEntries = "ledger_entries"
        }
    }

    /// Everything the suite holds about the caller, across its services, read page by page.
    func export(by principal: Principal) async throws -> Export {
        let options = WireCallOptions(principal: principal)
        let (users, addresses) = (self.users, AddressesRepository())
        let (user, saved) = try await database.read { sql in
            (
                try await users.find(principal.userID, in: sql),
                try await addresses.addresses(of: principal.userID, in: sql)
            )
        }
        guard let user else { throw OrderlyError(.invalidToken, "the account no longer exists") }
        let courier: UserID? = user.role == Role.courier ? user.id : nil
        let orders = try await Self.all { page in
            let found = try await self.orders.call(
                OrdersAPI.listOrders, OrderListRequest(courierID: courier, page: page), options: options)
            return (found.data, found.nextCursor)
        }
        let payments = try await Self.all { page in
            let found = try await self.payments.call(PaymentsAPI.ownPayments, page, options: options)
            return (found.data, found.nextCursor)
        }
        var export = Export(
            exportedAt: Date.currentMillisecond, user: user, addresses: saved, orders: orders, payments: payments,
            notifications: try await notificationsOf(options))
        if let courier {
            var balances: [CurrencyBalance] = []
            export.ledgerEntries = try await Self.all { (page: PageRequest) -> ([AccountEntry], String?) in
                let found = try await self.payments.call(
                    PaymentsAPI.balance, BalanceRequest(courierID: courier, page: page), options: options)
                balances = found.balances
                return (found.data, found.nextCursor)
            }
            export.balances = balances
        }
        return export
    }

    /// Every page of a list, from the first, 200 at a time.
    private static func all<Item>(_ page: (PageRequest) async throws -> ([Item], String?)) async throws -> [Item] {
        var (items, cursor): ([Item], String?) = ([], nil)
        repeat {
            let (found, next) = try await page(PageRequest(limit: 200, cursor: cursor))
            items += found
            cursor = next
        } while cursor != nil
        return items
    }

    private func notificationsOf(_ options: WireCallOptions) async throws -> [UserNotification] {
        var (all, after, more): ([UserNotification], Int64, Bool) = ([], 0, true)
        while more {
            let inbox = try await notifications.call(
                NotificationsAPI.list, NotificationListRequest(after: after, limit: 200), options: options)
            all += inbox.data
            (after, more) = (inbox.nextCursor, inbox.hasMore && !inbox.data.isEmpty)
        }
        return all
    }

    /// Closes the caller's account, once they give their password: deactivated at once, its
    /// sessions ended, their name, address, phone and e-mail address replaced, their delivery
    /// addresses and pending mail gone, and `user.erased` published for the other services to
    /// erase or anonymise what they hold (`docs/SECURITY.md`, "Closed accounts"). Customers and
    /// couriers only (403 naming who closes anyone else's); not while an order of theirs is on its
    /// way (422 `orders_in_progress`), nor while a courier holds cash collected for the platform
    /// (422 `cash_outstanding`).
    func close(_ request: AccountClosure, by principal: Principal, address: IPAddress?) async throws {
        if let closer = AccessPolicy(principal).closerOfOwnAccount {
            throw OrderlyError(
                .permissionDenied, "your account is closed by \(closer)", details: ["closed_by": .string(closer)])
        }
        let password = try request.validated()
        let users = self.users
        guard let user = try await database.read({ try await users.find(principal.userID, in: $0) }) else {
            throw OrderlyError(.invalidToken, "the account no longer exists")
        }
        try await limiter.admit(email: UsersRepository.emailColumn(user), address: address)
        let stored = try await database.read { try await users.passwordHash(of: user.id, in: $0) }
        guard try await passwords.verify(password, against: stored ?? passwords.decoy), stored != nil else {
            throw OrderlyError.invalidFields(["password": "is not your password"])
        }
        try await checkNothingOutstanding(of: user, options: WireCallOptions(principal: principal))
        try await database.transaction { transaction in
            guard let current = try await users.find(user.id, in: transaction.sql), current.active else {
                throw OrderlyError(.invalidToken, "the account is closed already")
            }
            let erased = try await UserBook(database: database).save(
                current.erased(), passwordHash: nil, in: transaction)
            try await users.endSessions(of: user.id, in: transaction)
            try await users.eraseOwnData(of: erased, email: current.email, in: transaction)
            transaction.publish(try GatewayEvents.userErased(erased))
        }
        await sessions.ended(user.id)
    }

    /// Refuses to close an account with an order on its way (a customer's, or one a courier
    /// carries) or, for a courier, cash they hold for the platform in any currency.
    private func checkNothingOutstanding(of user: User, options: WireCallOptions) async throws {
        let open = try await orders.call(
            OrdersAPI.listOrders,
            OrderListRequest(
                statuses: OrderStatus.allCases.filter { !$0.isFinal },
                courierID: user.role == .courier ? user.id : nil, page: PageRequest(limit: 1)),
            options: options)
        if let order = open.data.first {
            throw OrderlyError(
                .ordersInProgress, "an order of yours is still on its way; close the account once it is done",
                details: ["order_id": .string(order.id.description)])
        }
        guard user.role == .courier else { return }
        let held = try await payments.call(
            PaymentsAPI.balance, BalanceRequest(courierID: user.id, page: PageRequest(limit: 1)), options: options)
        if let owed = held.balances.first(where: { $0.balance < 0 }) {
            throw OrderlyError(
                .cashOutstanding,
                "you hold \(-owed.balance) \(owed.currency) (minor units) in cash collected for the platform; settle it first",
                details: ["amount": .int(-owed.balance), "currency": .string(owed.currency.description)])
        }
    }
}
