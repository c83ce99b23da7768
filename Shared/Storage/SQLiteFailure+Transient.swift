public import Domain
import PostgresNIO

extension SQLiteFailure: TransientFailure {
    /// Busy or locked, out of memory, an I/O error, a full disk, a file that cannot be opened:
    /// failures of the machine, not of the statement (SQLite's primary result codes).
    public var isTransient: Bool {
        let busy: Int32 = 5, locked: Int32 = 6, noMemory: Int32 = 7, ioError: Int32 = 10, full: Int32 = 13
        let cannotOpen: Int32 = 14, lockProtocol: Int32 = 15
        return [busy, locked, noMemory, ioError, full, cannotOpen, lockProtocol].contains(code & 0xff)
    }
}
