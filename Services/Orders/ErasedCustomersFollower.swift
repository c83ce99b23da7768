import Contracts
import Domain
import Events
import Runtime
import Storage

/// Erases a customer who closed their account from their orders (`user.erased`): each keeps its
/// lines, money and history for the store's and the platform's accounts, with the customer's
/// name replaced and their phone, address and notes gone, written as a change of the order (the
/// next version, a history entry and `order.updated`, so that the stores' apps and webhooks hold
/// the erased order too). Applied once, in one transaction with its inbox record.
struct ErasedCustomersFollower: EventFollower {
    static let producer = GatewayAPI.service
    static let types = [GatewayAPI.Events.userErased]
    /// The name its applied events are recorded under (the inbox).
    static let consumer = "orders.erasures"

    let database: Database
    let orders: OrdersRepository

    func apply(_ event: DomainEvent) async throws {
        let user = try event.payload.decode(as: User.self)
        guard user.role == .customer else { return }
        let (orders, book) = (self.orders, OrderBook(orders: orders))
        let change = OrderBook.Change(name: "customer_erased", event: OrdersAPI.Events.updated)
        try await database.applyOnce(event, consumer: Self.consumer) { transaction in
            for id in try await orders.ids(createdBy: user.id, in: transaction.sql) {
                // The order may be changed by its store meanwhile: read it again until the write holds.
                for _ in 0..<5 {
                    guard var order = try await orders.find(id, in: transaction.sql), order.customerID == user.id
                    else { break }
                    let read = order
                    order = order.erasingCustomer()
                    if try await book.record(&order, changedFrom: read, change, by: .server, in: transaction) { break }
                }
            }
        }
    }
}
