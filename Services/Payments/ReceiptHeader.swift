import Domain
import Foundation

/// What a receipt prints of its store, kept with the payment as the store was when the payment
/// was rung up: a receipt is the record of that sale, so later changes to the store do not
/// rewrite it, and issuing it needs no call to the catalog.
struct ReceiptHeader: Codable, Sendable, Hashable {
    var storeName: String
    var address: String?
    var phone: String?
    var timezone: String
    /// Who rang the payment up, by name, when the identity events have told of them.
    var staffName: String?
    /// The store's commission when the payment was made (`Store.commissionBP`): kept beside the
    /// payment for the ledger, never printed; absent from payments made before it.
    var commissionBP: Int?

    init(store: Store, staffName: String?) {
        self.storeName = store.name
        self.address = store.address
        self.phone = store.phone
        self.timezone = store.timezone
        self.staffName = staffName
        self.commissionBP = store.commissionBP
    }

    enum CodingKeys: String, CodingKey {
        case address, phone, timezone
        case storeName = "store_name"
        case staffName = "staff_name"
        case commissionBP = "commission_bp"
    }
}
