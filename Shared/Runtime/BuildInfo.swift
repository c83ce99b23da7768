import Metrics

/// What this build is: the release it belongs to and the commit it was built from
/// (`buildRevision`, written by the BuildRevision plugin). `--version` prints them, and every
/// process exports them as `orderly_build_info{version,revision} 1`.
public enum BuildInfo {
    /// The release: raised when one is cut, beside the migrations it ships
    /// (docs/OPERATIONS.md, "Upgrading").
    public static let version = "0.59.0"
    public static let revision = buildRevision

    /// `orderly-orders 0.59.0 (revision 1dc8918a2b3c)`.
    public static func line(_ program: String) -> String { "\(program) \(version) (revision \(revision))" }

    /// Records `orderly_build_info{version,revision} 1`.
    static func record() {
        Gauge(label: "orderly_build_info", dimensions: [("version", version), ("revision", revision)]).record(1)
    }
}
