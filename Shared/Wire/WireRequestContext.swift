public import Domain
import Events
import Foundation
import JSON
public import Logging
import Metrics
public import NIOCore
import WireCodec
import WireContract

/// What a handler knows about the call besides its body.
public struct WireRequestContext: Sendable {
    public let method: String
    /// The request id on its connection.
    public let requestID: UInt64
    /// The calling service, as proven by its hello.
    public let callerService: String
    /// The end user the call is made for, if any.
    public let principal: Principal?
    /// When the caller stops waiting.
    public let deadline: NIODeadline?
    public let trace: String?
    /// The client request's id the call serves, when the caller sent an acceptable one.
    public let clientRequestID: String?
    public let idempotencyKey: String?
    /// The connection's logger, before this request's metadata is added.
    let connectionLogger: Logger

    /// A logger with `rpc.method`, `rpc.request_id` and `trace.parent` set. Built on each use
    /// (log handlers may do work for every metadata change), so keep it in a local when
    /// logging several times.
    public var logger: Logger {
        var logger = connectionLogger
        logger[metadataKey: "rpc.method"] = "\(method)"
        logger[metadataKey: "rpc.request_id"] = "\(requestID)"
        if let trace { logger[metadataKey: "trace.parent"] = "\(trace)" }
        if let clientRequestID { logger[metadataKey: "request.id"] = "\(clientRequestID)" }
        return logger
    }
}
