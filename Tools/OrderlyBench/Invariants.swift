import ArgumentParser
import AsyncHTTPClient
import Contracts
import Domain
import Foundation
import Histogram
import NIOCore
import NIOHTTP1
import Synchronization

/// What must hold after any run, checked against the API as an admin (and each store's staff
/// member for the inbox).
struct Invariants {
    let api: API
    let cast: Cast
    let record: RunRecord
    let inboxWait: Double

    /// Every failure, and the counts of orders acknowledged and missing, orders or
    /// notifications there twice, and orders whose creation never reached the store's inbox.
    struct Outcome {
        var failures: [String] = []
        var lost = 0
        var duplicated = 0
        var notificationsMissing = 0
    }

    func check() async throws -> Outcome {
        var outcome = Outcome()
        var failures = record.replayMismatches.map { "a repeated creation answered differently: \($0)" }
        let acknowledged = record.orders
        let uncertain = record.uncertain
        var ordersByStore: [Int: [Order]] = [:]
        for (index, store) in cast.stores.enumerated() {
            ordersByStore[index] = try await allOrders(of: store)
        }
        var found: [OrderID: Order] = [:]
        for (index, orders) in ordersByStore {
            var seen = Set<OrderID>()
            var numbers = Set<Int64>()
            for order in orders {
                if !seen.insert(order.id).inserted {
                    failures.append("order \(order.id) is listed twice")
                    outcome.duplicated += 1
                }
                if !numbers.insert(order.number).inserted {
                    failures.append("store \(index + 1) has two orders numbered \(order.number)")
                }
                found[order.id] = order
            }
            let expected = acknowledged.values.filter { $0.store == index }.count
            outcome.duplicated += max(0, orders.count - expected - uncertain[index, default: 0])
            if orders.count < expected || orders.count > expected + uncertain[index, default: 0] {
                failures.append(
                    "store \(index + 1) has \(orders.count) orders; \(expected) were acknowledged and \(uncertain[index, default: 0]) had no answer"
                )
            }
        }
        for (id, sent) in acknowledged {
            guard let order = found[id] else {
                failures.append("acknowledged order \(id) does not exist")
                outcome.lost += 1
                continue
            }
            let quote =
                sent.fulfillment == .delivery
                ? DeliveryPricing.standard.quote(forBoxes: sent.boxes) : DeliveryQuote(fee: 0, multiplier: 0)
            if order.boxesCount != sent.boxes || order.deliveryFee != quote?.fee
                || order.boxesMultiplier != quote?.multiplier
            {
                failures.append(
                    "order \(id): \(order.boxesCount) boxes, fee \(order.deliveryFee) ×\(order.boxesMultiplier); expected \(sent.boxes) boxes at \(quote?.fee ?? -1)"
                )
            }
            let gross = order.items.reduce(0) { $0 + $1.lineGross }
            let net = order.items.reduce(0) { $0 + $1.lineNet }
            let vat = order.items.reduce(0) { $0 + $1.lineVAT }
            if order.itemsGross != gross || order.itemsNet != net || order.itemsVAT != vat
                || order.total != gross + order.deliveryFee || net + vat != gross
            {
                failures.append(
                    "order \(id): totals \(order.itemsNet)+\(order.itemsVAT)=\(order.itemsGross), total \(order.total); lines sum to \(net)+\(vat)=\(gross)"
                )
            }
        }
        for (id, winners) in record.claims {
            if winners.count > 1 { failures.append("order \(id) was claimed by \(winners.count) couriers") }
            if let winner = winners.first, let order = found[id], order.courierID != cast.courierIDs[winner] {
                failures.append(
                    "order \(id) is carried by \(order.courierID?.description ?? "nobody"), not its claimer")
            }
        }
        let inboxes = try await checkInboxes(ordersByStore)
        outcome.failures = failures + inboxes.failures
        outcome.duplicated += inboxes.duplicated
        outcome.notificationsMissing = inboxes.missing
        return outcome
    }

    private func allOrders(of store: StoreID) async throws -> [Order] {
        var orders: [Order] = []
        var cursor: String?
        repeat {
            let page = try await api.require(
                [200], .GET, "/v1/orders?store_id=\(store)&limit=200" + (cursor.map { "&cursor=\($0)" } ?? ""),
                token: cast.admin
            ).decode(Page<Order>.self)
            orders += page.data
            cursor = page.nextCursor
        } while cursor != nil
        return orders
    }

    /// Every order's creation reached its store's staff inbox exactly once, and every delivery
    /// order of a store that dispatches on creation the inbox of each courier (all on duty
    /// throughout), waiting for the notifications
    /// service to catch up, then reading each inbox to its end.
    private func checkInboxes(_ ordersByStore: [Int: [Order]]) async throws -> (
        failures: [String], missing: Int, duplicated: Int
    ) {
        let deadline = ContinuousClock.now + .milliseconds(Int(inboxWait * 1000))
        var (failures, missingTotal, duplicatedTotal): ([String], Int, Int) = ([], 0, 0)
        var inboxes = ordersByStore.sorted(by: { $0.key < $1.key }).map { index, orders in
            ("store \(index + 1)", "the staff inbox", cast.staff[index], Set(orders.map(\.id)))
        }
        // Couriers are told of a delivery as it is made only where its store dispatches on creation.
        let deliveries = Set(
            ordersByStore.filter { cast.dispatchesOnCreate[$0.key] }.values.joined()
                .filter { $0.fulfillment == .delivery }.map(\.id))
        for (index, courier) in cast.couriers.enumerated() {
            inboxes.append(("courier \(index + 1)", "their inbox", courier, deliveries))
        }
        for (who, inbox, token, expected) in inboxes {
            var missing = expected
            var told: [OrderID: Int] = [:]
            var cursor: Int64 = 0
            while true {
                let page = try await api.require(
                    [200], .GET, "/v1/notifications?after=\(cursor)&limit=200&wait=1", token: token
                ).decode(NotificationInbox.self)
                for notification in page.data where notification.type == "order.created" {
                    if let id = notification.data["order_id"].flatMap(OrderID.init) {
                        missing.remove(id)
                        told[id, default: 0] += 1
                    }
                }
                cursor = page.data.last?.seq ?? cursor
                if page.data.isEmpty && (missing.isEmpty || ContinuousClock.now > deadline) { break }
            }
            if !missing.isEmpty { failures.append("\(who): \(missing.count) orders never reached \(inbox)") }
            let twice = told.values.reduce(0) { $0 + max(0, $1 - 1) }
            if twice > 0 { failures.append("\(who): \(twice) repeated order.created notifications") }
            missingTotal += missing.count
            duplicatedTotal += twice
        }
        return (failures, missingTotal, duplicatedTotal)
    }
}
