import NIOCore

/// Protocol constants shared by servers and clients.
public enum WireDefaults {
    /// The protocol version this build speaks (`v` in every envelope).
    public static let protocolVersion: Int64 = 1
    /// The default largest frame: 4 MiB.
    public static let maximumFrameLength = 4 * 1024 * 1024
    /// The largest frame a server reads before the hello: 4 KiB.
    public static let maximumHelloLength = 4 * 1024
    /// The default cap on a server's open connections.
    public static let maximumConnections = 1024
    /// The default cap on a server's connections whose peer has not proved who it is yet: each
    /// may hold a hello's frame, and none stays past the stall timeout.
    public static let maximumUnprovenConnections = 64
}
