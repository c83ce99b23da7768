public import Domain
public import SQLKit

extension StoreScope {
    /// The SQL condition selecting the rows of the stores in the scope, by the store id in
    /// `column` (a column name from the code, never from a request).
    public func condition(on column: String) -> SQLQueryString {
        switch self {
        case .every: return "1 = 1"
        case .only(let store): return SQLQueryString(column) + " = \(bind: store.description)"
        case .none: return "1 = 0"
        }
    }
}
