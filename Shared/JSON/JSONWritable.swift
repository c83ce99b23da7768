import Domain
import Foundation

/// A value that writes its own JSON, byte for byte what Foundation's `JSONEncoder` writes for
/// it with sorted keys and RFC 3339 dates (tests hold the two together). Only for what the
/// profile shows on the hot path (the order: stored, published and answered on every change),
/// where Foundation's encoder cost as much as the SQL; everything else stays with Foundation.
public protocol JSONWritable {
    func write(to writer: inout JSONWriter)
}

extension JSONWritable {
    /// The JSON, slashes escaped as `\/` like the stored documents' encoder, or not, like Wire's.
    public func jsonBytes(escapingSlashes: Bool) -> [UInt8] {
        var writer = JSONWriter(escapingSlashes: escapingSlashes)
        write(to: &writer)
        return writer.bytes
    }
}
