import Contracts
import HTTPTypes

/// The headers the gateway reads and writes beyond HTTP's own.
extension HTTPField.Name {
    static let requestID = Self("X-Request-Id")!
    static let idempotencyKey = Self("Idempotency-Key")!
    static let traceparent = Self("traceparent")!
    static let xForwardedFor = Self("X-Forwarded-For")!
    static let lastEventID = Self("Last-Event-ID")!
    static let xAccelBuffering = Self("X-Accel-Buffering")!
    static let orderlySignature = Self(OrderlySignature.headerName)!
    static let xFrameOptions = Self("X-Frame-Options")!
    static let xContentTypeOptions = Self("X-Content-Type-Options")!
    static let referrerPolicy = Self("Referrer-Policy")!
}
