import Contracts
import Domain
import Foundation
import Storage
import TestSupport
import Testing

@testable import Orders

/// A courier's list of their own orders and the pool, read apart and merged: paged either way
/// it holds each of them once, in order, and nothing else.
@Suite("A courier's pages")
struct CourierPageTests {
    @Test(
        "their orders and the pool, merged page by page newest or oldest first",
        arguments: TestDatabase.kinds)
    func ownAndPool(on kind: Database.Kind) async throws {
        try await TestDatabase.with(kind) { test in
            let database = test.database
            try await database.migrate(scope: OrdersService.name, OrdersService.migrations)
            let orders = OrdersRepository(database: database)
            let (courier, other) = (UserID(), UserID())
            let draft = try OrderDraft(
                recipientFirstName: "Dana", recipientLastName: "Levi", phone: "050-1234567", street: "Herzl",
                buildingNo: "12", boxesCount: 1
            ).validated()
            let store = StoreID()
            // Eleven orders a minute apart, the last three in the same millisecond: theirs, in the
            // pool, another courier's, pending, a pickup.
            let kinds: [(OrderStatus, UserID?, Fulfillment)] = [
                (.outForDelivery, courier, .delivery), (.accepted, nil, .delivery), (.ready, other, .delivery),
                (.pending, nil, .delivery), (.ready, nil, .pickup), (.delivered, courier, .delivery),
                (.ready, nil, .delivery), (.preparing, nil, .delivery), (.accepted, courier, .delivery),
                (.accepted, nil, .delivery), (.ready, nil, .delivery),
            ]
            let expected = try await database.transaction { transaction in
                var expected: [OrderID] = []
                for (index, (status, carrier, fulfillment)) in kinds.enumerated() {
                    let minute = Int64(min(index, 8)) * 60_000
                    var order = Order(
                        id: OrderID(), number: Int64(index + 1), storeID: store, status: status, version: 1,
                        draft: draft, pickupAddress: "Allenby 1", quote: DeliveryQuote(fee: 0, multiplier: 0),
                        currency: .ils, createdBy: UserID(),
                        createdAt: Date(millisecondsSince1970: 1_800_000_000_000 + minute))
                    order.courierID = carrier
                    order.fulfillment = fulfillment
                    try await orders.insert(order, in: transaction)
                    if carrier == courier || order.isInPool { expected.append(order.id) }
                }
                return expected
            }
            for sort in [OrderSort.newest, .oldest] {
                var seen: [Order] = []
                var cursor: KeysetCursor?
                repeat {
                    let page = try await orders.list(
                        .courier(courier, pool: true), OrdersRepository.Filter(), sort: sort, after: cursor, limit: 2)
                    seen += page.data
                    cursor = try page.nextCursor.map { token throws(OrderlyError) in try KeysetCursor(token: token) }
                } while cursor != nil
                let keys = seen.map { ($0.createdAt.millisecondsSince1970, $0.id.description) }
                #expect(Set(seen.map(\.id)) == Set(expected) && seen.count == expected.count, "\(sort)")
                #expect(
                    zip(keys, keys.dropFirst()).allSatisfy { sort == .newest ? $0 > $1 : $0 < $1 }, "\(sort): \(keys)")
            }
        }
    }
}
