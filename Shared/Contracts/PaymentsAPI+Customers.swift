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
    /// Unlinks the customer's cards and keeps their payments.
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
}

/// A customer record to create in a store.
public struct NewCustomer: Codable, Sendable, Hashable {
    public var storeID: StoreID
    public var customer: CustomerDraft

    public init(storeID: StoreID, customer: CustomerDraft) {
        self.storeID = storeID
        self.customer = customer
    }

    enum CodingKeys: String, CodingKey {
        case customer
        case storeID = "store_id"
    }
}

public typealias CustomerPatch = Patch<CustomerID, CustomerDraft>

/// A store's customer records, newest first; with `search`, those whose name or e-mail
/// contains it, or whose phone's digits contain its digits.
public struct CustomerListRequest: Codable, Sendable, Hashable {
    public var storeID: StoreID
    public var search: String?
    public var page: PageRequest

    public init(storeID: StoreID, search: String? = nil, page: PageRequest = PageRequest()) {
        self.storeID = storeID
        self.search = search
        self.page = page
    }

    enum CodingKeys: String, CodingKey {
        case page
        case storeID = "store_id"
        case search = "q"
    }
}

/// A card to register in a store.
public struct NewCard: Codable, Sendable, Hashable {
    public var storeID: StoreID
    public var card: CardDraft

    public init(storeID: StoreID, card: CardDraft) {
        self.storeID = storeID
        self.card = card
    }

    enum CodingKeys: String, CodingKey {
        case card
        case storeID = "store_id"
    }
}

public typealias CardPatch = Patch<CardID, CardDraft>

/// A store's cards, newest first: in any of `statuses`, of `customerID`.
public struct CardListRequest: Codable, Sendable, Hashable {
    public var storeID: StoreID
    public var statuses: [CardStatus]?
    public var customerID: CustomerID?
    public var page: PageRequest

    public init(
        storeID: StoreID, statuses: [CardStatus]? = nil, customerID: CustomerID? = nil,
        page: PageRequest = PageRequest()
    ) {
        self.storeID = storeID
        self.statuses = statuses
        self.customerID = customerID
        self.page = page
    }

    enum CodingKeys: String, CodingKey {
        case statuses, page
        case storeID = "store_id"
        case customerID = "customer_id"
    }
}

/// The card a reader read at a store's till.
public struct CardLookupRequest: Codable, Sendable, Hashable {
    public var storeID: StoreID
    public var uid: String?

    public init(storeID: StoreID, uid: String?) {
        self.storeID = storeID
        self.uid = uid
    }

    enum CodingKeys: String, CodingKey {
        case uid
        case storeID = "store_id"
    }
}

/// A tapped card and the customer it pays for, if any.
public struct CardLookup: Codable, Sendable, Hashable {
    public var card: Card
    public var customer: Customer?

    public init(card: Card, customer: Customer?) {
        self.card = card
        self.customer = customer
    }
}

/// The payload of `card.linked`: the card, and the customer it was linked to.
public struct CardLinked: Codable, Sendable, Hashable {
    public var card: Card
    public var customer: Customer

    public init(card: Card, customer: Customer) {
        self.card = card
        self.customer = customer
    }
}
