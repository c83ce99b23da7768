import NIOCore

/// Whether a connection's peer has proved who it is (its hello's proof accepted): shared by the
/// connection's frame decoder, which holds every frame to the hello's limit until then, and its
/// handler, which says so. Read and written on the connection's event loop only, which is what
/// makes sharing it safe.
public final class WirePeerProof: @unchecked Sendable {
    public var isProven = false

    public init() {}
}
