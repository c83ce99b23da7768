import ArgumentParser
import AsyncHTTPClient
import Contracts
import Domain
import Foundation
import Histogram
import NIOCore
import NIOHTTP1
import Synchronization

/// The fields of an order a client acts on: reading only these keeps the load generator's own
/// share of the machine small (the invariants read whole orders).
struct OrderHeader: Codable, Sendable {
    var id: OrderID
    var number: Int64
    var status: OrderStatus
    var fulfillment: Fulfillment

    var isOpen: Bool { [.pending, .accepted, .preparing, .ready].contains(status) }
}
