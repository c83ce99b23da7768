public import Foundation

/// The fields of an address as a client sends them: all of them to save one, those to change
/// in a change (a blank optional text clears it).
public struct AddressFields: Codable, Sendable, Hashable {
    public var label: String?
    public var street: String?
    public var buildingNo: String?
    public var floor: String?
    public var apartment: String?
    public var city: String?
    public var deliveryNotes: String?
    public var phone: String?
    public var location: GeoPoint?
    public var isDefault: Bool?

    public init(
        label: String? = nil, street: String? = nil, buildingNo: String? = nil, floor: String? = nil,
        apartment: String? = nil, city: String? = nil, deliveryNotes: String? = nil, phone: String? = nil,
        isDefault: Bool? = nil, location: GeoPoint? = nil
    ) {
        self.location = location
        self.label = label
        self.street = street
        self.buildingNo = buildingNo
        self.floor = floor
        self.apartment = apartment
        self.city = city
        self.deliveryNotes = deliveryNotes
        self.phone = phone
        self.isDefault = isDefault
    }

    /// The fields of a saved address, to check out with.
    public init(_ address: DeliveryAddress) {
        self.init(
            label: address.label, street: address.street, buildingNo: address.buildingNo, floor: address.floor,
            apartment: address.apartment, city: address.city, deliveryNotes: address.deliveryNotes,
            phone: address.phone, location: address.location)
    }

    enum CodingKeys: String, CodingKey {
        case label, street, floor, apartment, city, phone, location
        case buildingNo = "building_no"
        case deliveryNotes = "delivery_notes"
        case isDefault = "is_default"
    }

    /// A new address made `at`, not the default, of these fields, each checked (the limits of
    /// an order's address; `street` and `building_no` required), every bad field named at once.
    /// `is_default` is the caller's to apply, as it changes the other addresses.
    public func validated(creatingAt now: Date) throws(OrderlyError) -> DeliveryAddress {
        var problems = FieldProblems()
        let address = newAddress(at: now, &problems)
        try problems.check()
        return address
    }

    /// The same new address, its problems put into `problems`: for a body that holds an
    /// address among its own fields (a checkout's), which names them with its own.
    public func newAddress(at now: Date, _ problems: inout FieldProblems) -> DeliveryAddress {
        var address = DeliveryAddress(
            id: AddressID(), label: nil, street: "", buildingNo: "", floor: nil, apartment: nil, city: nil,
            deliveryNotes: nil, phone: nil, isDefault: false, version: 1, createdAt: now, updatedAt: now)
        fill(&address, creating: true, &problems)
        return address
    }

    /// `current` with the fields given changed, each checked (the limits of an order's
    /// address; a blank optional text clears it), every bad field named at once. `is_default:
    /// false` on the default is refused, as the default stays one until another is made so;
    /// `is_default: true` is the caller's to apply, as it changes the other addresses.
    public func validated(updating current: DeliveryAddress) throws(OrderlyError) -> DeliveryAddress {
        var problems = FieldProblems()
        var address = current
        fill(&address, creating: false, &problems)
        if isDefault == false, address.isDefault {
            problems.add("is_default", "make another address the default instead")
        }
        try problems.check()
        return address
    }

    /// Applies the fields given to `address`, checking each (the limits of an order's
    /// address) into `problems`; on creation `street` and `building_no` are required.
    private func fill(_ address: inout DeliveryAddress, creating: Bool, _ problems: inout FieldProblems) {
        if creating || label != nil { address.label = problems.optionalText(label, "label", maximumLength: 100) }
        if creating || street != nil { address.street = problems.text(street, "street") }
        if creating || buildingNo != nil {
            address.buildingNo = problems.text(buildingNo, "building_no", maximumLength: 20)
        }
        if creating || floor != nil { address.floor = problems.optionalText(floor, "floor", maximumLength: 20) }
        if creating || apartment != nil {
            address.apartment = problems.optionalText(apartment, "apartment", maximumLength: 20)
        }
        if creating || city != nil { address.city = problems.optionalText(city, "city", maximumLength: 100) }
        if creating || deliveryNotes != nil {
            address.deliveryNotes = problems.optionalText(deliveryNotes, "delivery_notes", maximumLength: 1000)
        }
        if creating || phone != nil { address.phone = problems.phone(phone, "phone") }
        if let location {
            location.validate(into: &problems, field: "location")
            address.location = location
        }
    }
}
