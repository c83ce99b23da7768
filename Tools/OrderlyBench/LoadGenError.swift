import ArgumentParser
import AsyncHTTPClient
import Contracts
import Domain
import Foundation
import Histogram
import NIOCore
import NIOHTTP1
import Synchronization

struct LoadGenError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
