import ArgumentParser
import AsyncHTTPClient
import Contracts
import Domain
import Foundation
import Histogram
import NIOCore
import NIOHTTP1
import Synchronization

struct PhaseResult {
    var name: String
    var duration: Double
    var histograms: [String: Histogram<UInt64>]
    var unexpected: [String: Int]
    var serverErrors: Int

    func rate(_ operation: String) -> Double {
        Double(histograms[operation]?.totalCount ?? 0) / duration
    }
}

struct Report {
    private var phases: [PhaseResult] = []

    mutating func add(_ phase: PhaseResult) { phases.append(phase) }

    func print() {
        func column(_ text: String, _ width: Int, left: Bool = false) -> String {
            let padding = String(repeating: " ", count: max(0, width - text.count))
            return left ? text + padding : padding + text
        }
        func number(_ value: Double) -> String { String(format: "%.1f", value) }
        say("")
        say(
            column("phase", 9, left: true) + " " + column("operation", 40, left: true) + column("count", 8)
                + column("rate/s", 9) + column("p50 ms", 9) + column("p90 ms", 9) + column("p99 ms", 9)
                + column("max ms", 9) + column("unexpected", 11))
        for phase in phases {
            for (operation, histogram) in phase.histograms.sorted(by: { $0.key < $1.key }) {
                func ms(_ percentile: Double) -> String {
                    number(Double(histogram.valueAtPercentile(percentile)) / 1000)
                }
                say(
                    column(phase.name, 9, left: true) + " " + column(operation, 40, left: true)
                        + column("\(histogram.totalCount)", 8)
                        + column(String(format: "%.0f", phase.rate(operation)), 9)
                        + column(ms(50), 9) + column(ms(90), 9) + column(ms(99), 9)
                        + column(number(Double(histogram.max) / 1000), 9)
                        + column("\(phase.unexpected[operation] ?? 0)", 11))
            }
        }
        say("")
    }
}
