public import Foundation

/// A customer's device a store keeps on record for its repairs: its make, model and serial (or
/// IMEI), and the store's customer record it belongs to. An order's repair lines name it by
/// `device_id`. It goes with its customer: deleting the customer record deletes their devices.
public struct CustomerDevice: Hashable, Sendable, Codable {
    public var id: CustomerDeviceID
    public var storeID: StoreID
    public var customerID: CustomerID
    public var make: String
    public var model: String
    /// As printed on the device (or its IMEI); a list finds devices by it (`serialKey`).
    public var serial: String?
    public var notes: String?
    public var version: Int64
    public var createdAt: Date
    public var updatedAt: Date

    public init(
        id: CustomerDeviceID, storeID: StoreID, customerID: CustomerID, make: String, model: String, createdAt: Date
    ) {
        self.id = id
        self.storeID = storeID
        self.customerID = customerID
        self.make = make
        self.model = model
        self.version = 1
        self.createdAt = createdAt
        self.updatedAt = createdAt
    }

    /// The next version, changed at `now`.
    public mutating func touch(at now: Date) {
        version += 1
        updatedAt = now
    }

    /// The serial as a lookup matches it: without spaces and dashes, upper-cased, so that
    /// `35-209900-176148-1` and `352099001761481` are the same device.
    public static func serialKey(_ serial: String) -> String {
        String(serial.unicodeScalars.filter { $0 != " " && $0 != "-" }.map(Character.init)).uppercased()
    }

    enum CodingKeys: String, CodingKey {
        case id, make, model, serial, notes, version
        case storeID = "store_id"
        case customerID = "customer_id"
        case createdAt = "created_at"
        case updatedAt = "updated_at"
    }
}

/// A device's fields as a client sends them. On creation `customer_id`, `make` and `model` are
/// required; on a patch absent means unchanged and a blank `serial` or `notes` clears it.
/// Whether `customer_id` names a customer of the store is the payments service's to check.
public struct CustomerDeviceDraft: Hashable, Sendable, Codable {
    /// Chosen by the client for devices booked in offline; the server picks one otherwise.
    public var id: CustomerDeviceID?
    public var customerID: CustomerID?
    public var make: String?
    public var model: String?
    public var serial: String?
    public var notes: String?

    public init(
        id: CustomerDeviceID? = nil, customerID: CustomerID? = nil, make: String? = nil, model: String? = nil,
        serial: String? = nil, notes: String? = nil
    ) {
        self.id = id
        self.customerID = customerID
        self.make = make
        self.model = model
        self.serial = serial
        self.notes = notes
    }

    enum CodingKeys: String, CodingKey {
        case id, make, model, serial, notes
        case customerID = "customer_id"
    }

    /// A new device of `store` made at `now`, every bad or missing field named at once.
    public func validated(creatingIn store: StoreID, at now: Date) throws(OrderlyError) -> CustomerDevice {
        var problems = FieldProblems()
        let customer = problems.required(customerID, "customer_id")
        let make = problems.text(self.make, "make", maximumLength: 100)
        let model = problems.text(self.model, "model", maximumLength: 100)
        var device = CustomerDevice(
            id: id ?? CustomerDeviceID(), storeID: store, customerID: customer ?? CustomerID(), make: make,
            model: model, createdAt: now)
        applyOptional(to: &device, &problems)
        try problems.check()
        return device
    }

    /// `device` with the draft's changes, every bad field named at once.
    public func validated(updating device: CustomerDevice) throws(OrderlyError) -> CustomerDevice {
        var problems = FieldProblems()
        var device = device
        if let id, id != device.id { problems.add("id", "cannot change") }
        if let customerID { device.customerID = customerID }
        if make != nil { device.make = problems.text(make, "make", maximumLength: 100) }
        if model != nil { device.model = problems.text(model, "model", maximumLength: 100) }
        applyOptional(to: &device, &problems)
        try problems.check()
        return device
    }

    private func applyOptional(to device: inout CustomerDevice, _ problems: inout FieldProblems) {
        if serial != nil { device.serial = problems.optionalText(serial, "serial", maximumLength: 64) }
        if notes != nil { device.notes = problems.optionalText(notes, "notes", maximumLength: 1000) }
    }
}
