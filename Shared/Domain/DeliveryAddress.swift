public import Foundation

/// A place a customer has their orders delivered, kept with their profile; only they see it.
/// Exactly one of a customer's addresses is their default: the first they save, or the one
/// they last made so.
public struct DeliveryAddress: Hashable, Sendable, Codable {
    public var id: AddressID
    /// A name of the customer's own for it ("Home", "Work").
    public var label: String?
    public var street: String
    public var buildingNo: String
    public var floor: String?
    public var apartment: String?
    public var city: String?
    public var deliveryNotes: String?
    /// Who couriers call there; the customer's own phone when nil.
    public var phone: String?
    /// Where it is, as the customer's phone put it on the map: what a store's delivery area is
    /// checked against, and distances measured to.
    public var location: GeoPoint?
    public var isDefault: Bool
    public var version: Int64
    public var createdAt: Date
    public var updatedAt: Date

    /// The most addresses one customer keeps.
    public static let maximumPerUser = 20

    public init(
        id: AddressID, label: String?, street: String, buildingNo: String, floor: String?, apartment: String?,
        city: String?, deliveryNotes: String?, phone: String?, isDefault: Bool, version: Int64, createdAt: Date,
        updatedAt: Date
    ) {
        self.id = id
        self.label = label
        self.street = street
        self.buildingNo = buildingNo
        self.floor = floor
        self.apartment = apartment
        self.city = city
        self.deliveryNotes = deliveryNotes
        self.phone = phone
        self.isDefault = isDefault
        self.version = version
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    enum CodingKeys: String, CodingKey {
        case id, label, street, floor, apartment, city, phone, version, location
        case buildingNo = "building_no"
        case deliveryNotes = "delivery_notes"
        case isDefault = "is_default"
        case createdAt = "created_at"
        case updatedAt = "updated_at"
    }
}
