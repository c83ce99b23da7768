import Foundation
import SQLKit
import Synchronization

extension SQLiteValue {
    /// The value as SQLKit binds it.
    var bindable: any Encodable & Sendable {
        switch self {
        case .integer(let number): number
        case .real(let number): number
        case .text(let text): text
        case .blob(let bytes): Data(bytes)
        case .null: String?.none
        }
    }
}
