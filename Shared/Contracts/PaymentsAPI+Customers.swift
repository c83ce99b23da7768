public import Domain
public import WireContract

/// The payments service's methods of a store's customer records and NFC cards, which the till
/// looks up, links and pays with. Admins and the store's users create, read and change them;
/// only owners, managers and admins delete a customer record.
extension PaymentsAPI {
    /// Needs an idempotency key; `id` may be the client's.
    public static let createCustomer = WireMethod<NewCustomer, Customer>(
        "payments.customers.create", safeToRetry: false)
    public static let listCustomers = WireMethod<CustomerListRequest, Page<Customer>>(
        "payments.customers.list", safeToRetry: true)
    public static let getCustomer = WireMethod<ResourceRef<CustomerID>, Customer>(
        "payments.customers.get", safeToRetry: true)
    public static let updateCustomer = WireMethod<CustomerPatch, Customer>(
        "payments.customers.update", safeToRetry: false)
    /// Unlinks the customer's cards, deletes their devices and keeps their payments.
    public static let deleteCustomer = WireMethod<ResourceRef<CustomerID>, Customer>(
        "payments.customers.delete", safeToRetry: false)
    /// Needs an idempotency key; `id` may be the client's.
    public static let createCard = WireMethod<NewCard, Card>("payments.cards.create", safeToRetry: false)
    public static let listCards = WireMethod<CardListRequest, Page<Card>>("payments.cards.list", safeToRetry: true)
    public static let getCard = WireMethod<ResourceRef<CardID>, Card>("payments.cards.get", safeToRetry: true)
    /// The till's tap: the store's card with this uid, and its customer.
    public static let lookUpCard = WireMethod<CardLookupRequest, CardLookup>(
        "payments.cards.lookup", safeToRetry: true)
    public static let updateCard = WireMethod<CardPatch, Card>("payments.cards.update", safeToRetry: false)
    /// Needs an idempotency key; `id` may be the client's.
    public static let createDevice = WireMethod<NewCustomerDevice, CustomerDevice>(
        "payments.devices.create", safeToRetry: false)
    public static let listDevices = WireMethod<CustomerDeviceListRequest, Page<CustomerDevice>>(
        "payments.devices.list", safeToRetry: true)
    public static let getDevice = WireMethod<ResourceRef<CustomerDeviceID>, CustomerDevice>(
        "payments.devices.get", safeToRetry: true)
    public static let updateDevice = WireMethod<CustomerDevicePatch, CustomerDevice>(
        "payments.devices.update", safeToRetry: false)
}

public typealias CustomerPatch = Patch<CustomerID, CustomerDraft>

public typealias CardPatch = Patch<CardID, CardDraft>

public typealias CustomerDevicePatch = Patch<CustomerDeviceID, CustomerDeviceDraft>
