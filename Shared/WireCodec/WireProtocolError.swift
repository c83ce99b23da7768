/// Why a Wire peer broke the protocol. Frame-level errors close the connection after an error
/// frame; envelope-level errors are answered for that frame and the connection stays usable.
public enum WireProtocolError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A frame announced more bytes than the configured maximum.
    case frameTooLarge(length: Int, limit: Int)
    /// A frame began but did not complete within the allowed time.
    case stalledFrame(timeoutMilliseconds: Int64)
    /// A well-formed frame whose content is not a valid envelope.
    case malformedEnvelope(String)
    /// An envelope of a protocol version this build does not speak.
    case unsupportedVersion(Int64)

    public var description: String {
        switch self {
        case .frameTooLarge(let length, let limit):
            return "frame of \(length) bytes exceeds the limit of \(limit) bytes"
        case .stalledFrame(let timeout):
            return "frame not completed within \(timeout) ms"
        case .malformedEnvelope(let reason):
            return "malformed envelope: \(reason)"
        case .unsupportedVersion(let version):
            return "unsupported protocol version \(version)"
        }
    }
}
