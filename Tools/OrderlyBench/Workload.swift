import ArgumentParser
import AsyncHTTPClient
import Contracts
import Domain
import Foundation
import Histogram
import NIOCore
import NIOHTTP1
import Synchronization

/// What `orderly loadgen` drives.
enum Workload: String, ExpressibleByArgument, CaseIterable {
    case orders, catalog, pos, notifications, marketplace
}
