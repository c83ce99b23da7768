public import Domain
public import PostgresNIO

extension PSQLError: TransientFailure {
    /// A connection that failed or closed, the client shutting down, or a server error of the
    /// moment: its SQLSTATE a connection exception (class 08), a serialization failure or
    /// deadlock (40001, 40P01), insufficient resources (class 53), or the server shutting
    /// down or starting (57P01–57P03).
    public var isTransient: Bool {
        switch code {
        case .connectionError, .serverClosedConnection, .clientClosedConnection, .uncleanShutdown, .poolClosed:
            return true
        case .server:
            guard let state = serverInfo?[.sqlState] else { return false }
            return state.hasPrefix("08") || state.hasPrefix("53")
                || ["40001", "40P01", "57P01", "57P02", "57P03"].contains(state)
        default:
            return false
        }
    }
}
