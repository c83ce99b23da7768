import Domain
import Foundation
public import Logging

/// How log lines look: `plain` for people at a terminal, `json` (one object per line) for
/// collectors.
public enum LogFormat: String, Sendable, CaseIterable {
    case plain, json
}

/// Sets the process-wide log handler. Executables call this once; libraries never do.
public func bootstrapLogging(
    format: LogFormat, level: Logger.Level, service: String, metadataProvider: Logger.MetadataProvider? = nil
) {
    LoggingSystem.bootstrap(
        { label, provider in
            var handler: any LogHandler
            switch format {
            case .plain: handler = PlainLogHandler(label: label)
            case .json: handler = JSONLinesLogHandler(label: label, service: service)
            }
            handler.logLevel = level
            handler.metadataProvider = provider
            return handler
        }, metadataProvider: metadataProvider)
}

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

/// Writes each event as one JSON object on standard error:
/// `{"level":"info","logger":"…","msg":"…","rpc.method":"…","service":"orders","ts":"…"}`.
public struct JSONLinesLogHandler: LogHandler {
    public var metadataProvider: Logger.MetadataProvider?
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level = .info
    private let label: String
    private let service: String
    private let output: @Sendable (String) -> Void

    /// A handler writing to `output`, standard error unless told otherwise.
    public init(
        label: String, service: String,
        output: (@Sendable (String) -> Void)? = nil
    ) {
        self.label = label
        self.service = service
        self.output = output ?? { FileHandle.standardError.write(Data($0.utf8)) }
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var fields: [String: String] = [:]
        for (key, value) in metadata { fields[key] = "\(value)" }
        for (key, value) in metadataProvider?.get() ?? [:] { fields[key] = "\(value)" }
        for (key, value) in event.metadata ?? [:] { fields[key] = "\(value)" }
        let line = Self.render(
            timestamp: Date(), level: event.level, service: service, label: label, message: "\(event.message)",
            fields: fields)
        output(line)
    }

    /// One JSON object and a line break: the event's metadata and, over any metadata of the
    /// same name, `ts`, `level`, `service`, `logger` and `msg`; keys sorted.
    static func render(
        timestamp: Date, level: Logger.Level, service: String, label: String, message: String, fields: [String: String]
    ) -> String {
        var object = fields
        object["ts"] = RFC3339.format(timestamp)
        object["level"] = level.rawValue
        object["service"] = service
        object["logger"] = label
        object["msg"] = message
        let json = (try? encoder.encode(object)).map { String(decoding: $0, as: UTF8.self) }
        return (json ?? #"{"msg":"a log line could not be written"}"#) + "\n"
    }

    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()
}
