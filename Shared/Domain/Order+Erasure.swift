extension Order {
    /// The name an order shows once its customer closed their account.
    public static let deletedCustomer = "Deleted customer"

    /// The order as the store and the platform keep it once its customer closed their account:
    /// its lines, money and history as they were, the customer's name `Deleted customer`, and
    /// none of their phone, address or notes.
    public func erasingCustomer() -> Order {
        var order = self
        order.recipientFirstName = Self.deletedCustomer
        order.recipientLastName = nil
        order.customerName = Self.deletedCustomer
        order.phone = nil
        order.street = nil
        order.buildingNo = nil
        order.floor = nil
        order.apartment = nil
        order.city = nil
        order.deliveryNotes = nil
        order.deliveryAddress = nil
        order.customerNotes = nil
        return order
    }
}
