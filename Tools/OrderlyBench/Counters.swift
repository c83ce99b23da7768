import ArgumentParser
import AsyncHTTPClient
import Contracts
import Domain
import Foundation
import Histogram
import NIOCore
import NIOHTTP1
import Synchronization

/// Operations done and unexpected answers so far in a phase, for its progress line.
final class Counters: Sendable {
    let steps = Atomic<Int>(0)
    let errors = Atomic<Int>(0)
}
