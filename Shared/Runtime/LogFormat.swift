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
