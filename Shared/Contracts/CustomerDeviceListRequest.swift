public import Domain
import WireContract

/// A store's customers' devices, newest first: of `customerID`, with `serial` (matched as
/// `CustomerDevice.serialKey`).
public struct CustomerDeviceListRequest: Codable, Sendable, Hashable {
    public var storeID: StoreID
    public var customerID: CustomerID?
    public var serial: String?
    public var page: PageRequest

    public init(
        storeID: StoreID, customerID: CustomerID? = nil, serial: String? = nil, page: PageRequest = PageRequest()
    ) {
        self.storeID = storeID
        self.customerID = customerID
        self.serial = serial
        self.page = page
    }

    enum CodingKeys: String, CodingKey {
        case serial, page
        case storeID = "store_id"
        case customerID = "customer_id"
    }
}
