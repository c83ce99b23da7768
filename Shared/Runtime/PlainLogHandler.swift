import Domain
import Foundation
public import Logging

/// Writes each event as one line on standard error:
/// `2026-11-24T19:23:08.120Z info orders: rpc.method=orders.create service.instance=… message`.
/// Its metadata is only turned into text when a line is written (swift-log's `StreamLogHandler`
/// does it whenever metadata is set, on every request, even when nothing is logged).
public struct PlainLogHandler: LogHandler {
    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?
    public var logLevel: Logger.Level = .info
    private let label: String
    private let output: @Sendable (String) -> Void

    /// A handler writing to `output`, standard error unless told otherwise.
    public init(label: String, output: (@Sendable (String) -> Void)? = nil) {
        self.label = label
        self.output = output ?? { FileHandle.standardError.write(Data($0.utf8)) }
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var fields = metadata
        // The trace's ids, when one is active (`metadataProvider`).
        for (key, value) in metadataProvider?.get() ?? [:] { fields[key] = value }
        for (key, value) in event.metadata ?? [:] { fields[key] = value }
        var line = "\(RFC3339.format(Date())) \(event.level) \(label):"
        for key in fields.keys.sorted() { line += " \(key)=\(Self.oneLine("\(fields[key]!)"))" }
        line += " \(Self.oneLine("\(event.message)"))\n"
        output(line)
    }

    /// `text` with its control characters (a line break, a carriage return, an escape) written
    /// as `\n`, `\r` or `\u{1b}`: what a client sent, logged, stays on its own line and forges
    /// no other.
    static func oneLine(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else { return text }
        var escaped = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\n": escaped += "\\n"
            case "\r": escaped += "\\r"
            case _ where scalar.properties.generalCategory == .control:
                escaped += "\\u{\(String(scalar.value, radix: 16))}"
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }
}
