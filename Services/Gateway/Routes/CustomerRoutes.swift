import Contracts
import Domain
import Hummingbird
import Wire

/// `/v1/stores/{id}/customers`, `/v1/customers…`, `/v1/stores/{id}/cards…`, `/v1/cards…`,
/// `/v1/stores/{id}/customer-devices` and `/v1/customer-devices/{id}`: a store's customer records,
/// NFC cards and customers' devices, forwarded to the payments service. Whether a
/// `user_id` names a customer's account is the identity's to say, so it is checked here.
struct CustomerRoutes: Sendable {
    let payments: any WireCaller
    let identity: UsersHandlers

    func add(to v1: RouterGroup<GatewayContext>) {
        v1.post("stores/:id/customers", use: signedIn(create))
            .get("stores/:id/customers", use: signedIn(list))
            .get("customers/:id", use: signedIn(get))
            .patch("customers/:id", use: signedIn(update))
            .delete("customers/:id", use: signedIn(delete))
            .post("stores/:id/cards", use: signedIn(createCard))
            .get("stores/:id/cards", use: signedIn(cards))
            .get("stores/:id/cards/lookup", use: signedIn(lookUp))
            .get("cards/:id", use: signedIn(card))
            .patch("cards/:id", use: signedIn(updateCard))
            .post("stores/:id/customer-devices", use: signedIn(createDevice))
            .get("stores/:id/customer-devices", use: signedIn(devices))
            .get("customer-devices/:id", use: signedIn(device))
            .patch("customer-devices/:id", use: signedIn(updateDevice))
    }

    @Sendable func create(_ request: SignedInRequest) async throws -> Response {
        let draft = try await request.decode(CustomerDraft.self)
        try await checkAccount(draft.userID)
        let customer = try await payments.call(
            PaymentsAPI.createCustomer, NewCustomer(storeID: try request.id(as: StoreID.self), customer: draft),
            options: request.options)
        return try JSONBody.response(customer, status: .created, version: customer.version)
    }

    @Sendable func list(_ request: SignedInRequest) async throws -> Response {
        var query = request.query
        let list = CustomerListRequest(
            storeID: try request.id(as: StoreID.self), search: query.text("q"), page: query.page())
        try query.check()
        return try JSONBody.response(try await payments.call(PaymentsAPI.listCustomers, list, options: request.options))
    }

    @Sendable func get(_ request: SignedInRequest) async throws -> Response {
        let customer = try await payments.call(
            PaymentsAPI.getCustomer, ResourceRef(id: try request.id(as: CustomerID.self)), options: request.options)
        return try JSONBody.response(customer, version: customer.version)
    }

    @Sendable func update(_ request: SignedInRequest) async throws -> Response {
        let patch = try await request.patch(try request.id(as: CustomerID.self), CustomerDraft.self)
        try await checkAccount(patch.changes.userID)
        let customer = try await payments.call(PaymentsAPI.updateCustomer, patch, options: request.options)
        return try JSONBody.response(customer, version: customer.version)
    }

    @Sendable func delete(_ request: SignedInRequest) async throws -> Response {
        _ = try await payments.call(
            PaymentsAPI.deleteCustomer, ResourceRef(id: try request.id(as: CustomerID.self)), options: request.options)
        return Response(status: .noContent)
    }

    @Sendable func createCard(_ request: SignedInRequest) async throws -> Response {
        let card = try await payments.call(
            PaymentsAPI.createCard,
            NewCard(storeID: try request.id(as: StoreID.self), card: try await request.decode(CardDraft.self)),
            options: request.options)
        return try JSONBody.response(card, status: .created, version: card.version)
    }

    @Sendable func cards(_ request: SignedInRequest) async throws -> Response {
        var query = request.query
        let list = CardListRequest(
            storeID: try request.id(as: StoreID.self), statuses: query.choices("status", as: CardStatus.self),
            customerID: query.id("customer_id", as: CustomerID.self), page: query.page())
        try query.check()
        return try JSONBody.response(try await payments.call(PaymentsAPI.listCards, list, options: request.options))
    }

    @Sendable func lookUp(_ request: SignedInRequest) async throws -> Response {
        let lookup = CardLookupRequest(storeID: try request.id(as: StoreID.self), uid: request.query.text("uid"))
        return try JSONBody.response(try await payments.call(PaymentsAPI.lookUpCard, lookup, options: request.options))
    }

    @Sendable func card(_ request: SignedInRequest) async throws -> Response {
        let card = try await payments.call(
            PaymentsAPI.getCard, ResourceRef(id: try request.id(as: CardID.self)), options: request.options)
        return try JSONBody.response(card, version: card.version)
    }

    @Sendable func updateCard(_ request: SignedInRequest) async throws -> Response {
        let patch = try await request.patch(try request.id(as: CardID.self), CardDraft.self)
        let card = try await payments.call(PaymentsAPI.updateCard, patch, options: request.options)
        return try JSONBody.response(card, version: card.version)
    }

    @Sendable func createDevice(_ request: SignedInRequest) async throws -> Response {
        let device = try await payments.call(
            PaymentsAPI.createDevice,
            NewCustomerDevice(
                storeID: try request.id(as: StoreID.self), device: try await request.decode(CustomerDeviceDraft.self)),
            options: request.options)
        return try JSONBody.response(device, status: .created, version: device.version)
    }

    @Sendable func devices(_ request: SignedInRequest) async throws -> Response {
        var query = request.query
        let list = CustomerDeviceListRequest(
            storeID: try request.id(as: StoreID.self), customerID: query.id("customer_id", as: CustomerID.self),
            serial: query.text("serial"), page: query.page())
        try query.check()
        return try JSONBody.response(try await payments.call(PaymentsAPI.listDevices, list, options: request.options))
    }

    @Sendable func device(_ request: SignedInRequest) async throws -> Response {
        let device = try await payments.call(
            PaymentsAPI.getDevice, ResourceRef(id: try request.id(as: CustomerDeviceID.self)),
            options: request.options)
        return try JSONBody.response(device, version: device.version)
    }

    @Sendable func updateDevice(_ request: SignedInRequest) async throws -> Response {
        let patch = try await request.patch(try request.id(as: CustomerDeviceID.self), CustomerDeviceDraft.self)
        let device = try await payments.call(PaymentsAPI.updateDevice, patch, options: request.options)
        return try JSONBody.response(device, version: device.version)
    }

    /// Refuses a `user_id` that is not a customer's account (422 naming it).
    private func checkAccount(_ user: UserID?) async throws {
        guard let user, try await !identity.isCustomerAccount(user) else { return }
        throw OrderlyError.invalidFields(["user_id": "is not a customer's account"])
    }
}
