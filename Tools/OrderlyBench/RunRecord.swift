import ArgumentParser
import AsyncHTTPClient
import Contracts
import Domain
import Foundation
import Histogram
import NIOCore
import NIOHTTP1
import Synchronization

/// What the run has learnt for the invariants: every order acknowledged, every creation whose
/// answer was lost, every claim won.
final class RunRecord: Sendable {
    struct Acknowledged: Sendable {
        var store: Int
        var boxes: Int
        var fulfillment: Fulfillment
    }

    private let state = Mutex<
        (
            orders: [OrderID: Acknowledged], uncertain: [Int: Int], claims: [OrderID: Set<Int>],
            replayMismatches: [String]
        )
    >(([:], [:], [:], []))

    func acknowledged(_ id: OrderID, _ order: Acknowledged) { state.withLock { $0.orders[id] = order } }
    func uncertain(store: Int) { state.withLock { $0.uncertain[store, default: 0] += 1 } }
    func claimed(_ id: OrderID, by courier: Int) { state.withLock { _ = $0.claims[id, default: []].insert(courier) } }
    func replayMismatch(_ what: String) { state.withLock { $0.replayMismatches.append(what) } }

    var orders: [OrderID: Acknowledged] { state.withLock { $0.orders } }
    var uncertain: [Int: Int] { state.withLock { $0.uncertain } }
    var claims: [OrderID: Set<Int>] { state.withLock { $0.claims } }
    var replayMismatches: [String] { state.withLock { $0.replayMismatches } }
}
