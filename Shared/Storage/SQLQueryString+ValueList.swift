public import SQLKit

extension SQLQueryString {
    /// `values` bound one by one and separated by commas, sorted so that the same set gives the
    /// same statement: the inside of an `IN (…)`.
    public static func boundList(_ values: some Sequence<String>) -> SQLQueryString {
        var list: SQLQueryString = ""
        for (index, value) in values.sorted().enumerated() {
            list = list + (index == 0 ? "" : ", ") + "\(bind: value)"
        }
        return list
    }
}
