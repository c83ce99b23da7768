import ArgumentParser
import AsyncHTTPClient
import Contracts
import Domain
import Foundation
import Histogram
import NIOCore
import NIOHTTP1
import Synchronization

/// Latencies per operation (microseconds) and the answers nobody should get.
struct Stats: Sendable {
    var histograms: [String: Histogram<UInt64>] = [:]
    var unexpectedByOperation: [String: Int] = [:]
    /// Answers of status 500 and above.
    var serverErrors = 0
    var unexpected: Int { unexpectedByOperation.values.reduce(0, +) }

    /// Times `body`; an answer outside `expected` (2xx by default) counts as unexpected.
    @discardableResult
    mutating func time(_ operation: String, expected: Set<Int>? = nil, _ body: () async throws -> API.Reply)
        async throws -> API.Reply?
    {
        let start = ContinuousClock.now
        let reply: API.Reply
        do {
            reply = try await body()
        } catch {
            unexpectedByOperation[operation, default: 0] += 1
            return nil
        }
        let micros = UInt64(max(1, (ContinuousClock.now - start).timeInterval * 1_000_000))
        histograms[
            operation, default: Histogram(highestTrackableValue: 120_000_000, numberOfSignificantValueDigits: .three)
        ]
        .record(micros)
        if reply.status >= 500 { serverErrors += 1 }
        if !(expected?.contains(reply.status) ?? (200..<300).contains(reply.status)) {
            unexpectedByOperation[operation, default: 0] += 1
        }
        return reply
    }

    mutating func merge(_ other: Stats) {
        for (name, histogram) in other.histograms {
            if histograms[name] == nil { histograms[name] = histogram } else { histograms[name]!.add(histogram) }
        }
        unexpectedByOperation.merge(other.unexpectedByOperation, uniquingKeysWith: +)
        serverErrors += other.serverErrors
    }
}
