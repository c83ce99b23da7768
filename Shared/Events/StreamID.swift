/// A stream entry's id, `<milliseconds>-<sequence>`, ordered as Redis orders them.
public struct StreamID: Comparable, Hashable, Sendable, CustomStringConvertible {
    public var milliseconds: UInt64
    public var sequence: UInt64

    public init(milliseconds: UInt64, sequence: UInt64) {
        self.milliseconds = milliseconds
        self.sequence = sequence
    }

    /// Parses `1700000000000-3`; nil for anything else.
    public init?(_ text: String) {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, let milliseconds = UInt64(parts[0]), let sequence = UInt64(parts[1]) else {
            return nil
        }
        self.init(milliseconds: milliseconds, sequence: sequence)
    }

    public static let zero = StreamID(milliseconds: 0, sequence: 0)

    /// The smallest id after this one.
    public var next: StreamID {
        sequence == .max
            ? StreamID(milliseconds: milliseconds + 1, sequence: 0)
            : StreamID(milliseconds: milliseconds, sequence: sequence + 1)
    }

    public static func < (lhs: StreamID, rhs: StreamID) -> Bool {
        (lhs.milliseconds, lhs.sequence) < (rhs.milliseconds, rhs.sequence)
    }

    public var description: String { "\(milliseconds)-\(sequence)" }
}
