import Domain
import Foundation
public import Logging

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
