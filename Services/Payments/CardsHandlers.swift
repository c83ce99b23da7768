import Contracts
import Domain
import Foundation
import SQLKit
import Storage
import Wire

/// The payments service's Wire methods of a store's NFC cards: registered, looked up by the
/// uid a reader gives at the till, linked to a customer (their `first_card_linked_at`
/// milestone), and put out of use (`inactive`, `blocked`), after which they cannot pay.
struct CardsHandlers: Sendable {
    let database: Database
    let catalog: any WireCaller

    var cards: CardsRepository { CardsRepository(database: database) }
    var customers: CustomersRepository { CustomersRepository(database: database) }
    var idempotency: IdempotencyStore { IdempotencyStore(database: database) }

    func register(in router: inout WireRouter) {
        router.register(PaymentsAPI.createCard) { request, context in
            try await create(request, principal: context.requirePrincipal(), idempotencyKey: context.idempotencyKey)
        }
        router.register(PaymentsAPI.listCards) { request, context in
            guard AccessPolicy(try context.requirePrincipal()).canSeeCustomers(of: request.storeID) else {
                throw OrderlyError(.notFound, "no store \(request.storeID)")
            }
            return try await cards.list(
                request, after: try request.page.cursor.map { try KeysetCursor(token: $0) },
                limit: try KeysetCursor.limit(request.page.limit))
        }
        router.register(PaymentsAPI.getCard) { ref, context in
            let cards = self.cards
            return try await database.read { sql in
                try await Self.card(ref.id, for: context.requirePrincipal(), cards, in: sql)
            }
        }
        router.register(PaymentsAPI.lookUpCard) { request, context in
            try await lookUp(request, principal: context.requirePrincipal())
        }
        router.register(PaymentsAPI.updateCard) { patch, context in
            try await update(patch, principal: context.requirePrincipal(), idempotencyKey: context.idempotencyKey)
        }
    }

    /// Registers a card in the store; a uid another card of the store has is 409 naming `uid`.
    func create(_ request: NewCard, principal: Principal, idempotencyKey: String?) async throws -> Card {
        try AccessPolicy(principal).checkKeepingCustomers(
            of: request.storeID, else: OrderlyError(.notFound, "no store \(request.storeID)"))
        _ = try await catalog.call(
            CatalogAPI.getStore, ResourceRef(id: request.storeID), options: WireCallOptions(principal: principal))
        let now = Date.currentMillisecond
        let new = try request.card.validated(creatingIn: request.storeID, at: now)
        let (cards, customers) = (self.cards, self.customers)
        return try await idempotency.write(
            key: idempotencyKey, caller: principal.userID, scope: "payments.cards.create:\(request.storeID)",
            request: request
        ) { transaction in
            try await transaction.lock(.card(new.id))
            try await transaction.lock(.cardNumber(new.uid, in: new.storeID))
            if try await cards.find(new.id, in: transaction.sql) != nil {
                throw OrderlyError(.conflict, "a card \(new.id) exists already", details: ["id": .string("is taken")])
            }
            if try await cards.find(uid: new.uid, in: new.storeID, in: transaction.sql) != nil {
                throw OrderlyError(
                    .conflict, "the store has a card \(new.uidDisplay) already",
                    details: ["uid": .string("is another card's of the store")])
            }
            try await Self.link(new, customers, at: now, in: transaction)
            try await cards.insert(new, in: transaction)
            return new
        }
    }

    /// The till's tap: the store's card with the uid read, and its customer.
    func lookUp(_ request: CardLookupRequest, principal: Principal) async throws -> CardLookup {
        guard AccessPolicy(principal).canSeeCustomers(of: request.storeID) else {
            throw OrderlyError(.notFound, "no store \(request.storeID)")
        }
        let uid = try CardDraft(uid: request.uid).validUID()
        let (cards, customers) = (self.cards, self.customers)
        return try await database.read { sql in
            guard let card = try await cards.find(uid: uid, in: request.storeID, in: sql) else {
                throw OrderlyError(.notFound, "no card \(uid) in the store")
            }
            var customer: Customer?
            if let id = card.customerID { customer = try await customers.find(id, in: sql) }
            return CardLookup(card: card, customer: customer)
        }
    }

    /// Changes a card's name, status, customer or wallet, at the version the caller read when
    /// it names one.
    func update(_ patch: CardPatch, principal: Principal, idempotencyKey: String?) async throws -> Card {
        let (cards, customers) = (self.cards, self.customers)
        return try await idempotency.write(
            key: idempotencyKey, caller: principal.userID, scope: "payments.cards.update:\(patch.id)", request: patch
        ) { transaction in
            try await transaction.lock(.card(patch.id))
            var card = try await Self.card(patch.id, for: principal, cards, toChange: true, in: transaction.sql)
            if let expected = patch.expectedVersion, expected != card.version {
                throw OrderlyError.versionConflict(current: card)
            }
            let before = card
            card = try patch.changes.validated(updating: card)
            guard card != before else { return card }
            let now = Date.currentMillisecond
            card.touch(at: now)
            if card.customerID != before.customerID { try await Self.link(card, customers, at: now, in: transaction) }
            try await cards.update(card, in: transaction)
            return card
        }
    }

    /// The card `id`, when the caller may see it (404 otherwise) and, `toChange`, change it (403).
    static func card(
        _ id: CardID, for principal: Principal, _ cards: CardsRepository, toChange: Bool = false,
        in sql: any SQLDatabase
    ) async throws -> Card {
        let missing = OrderlyError(.notFound, "no card \(id)")
        let policy = AccessPolicy(principal)
        guard let card = try await cards.find(id, in: sql), policy.canSeeCustomers(of: card.storeID) else {
            throw missing
        }
        if toChange { try policy.checkKeepingCustomers(of: card.storeID, else: missing) }
        return card
    }

    /// Checks that the customer the card is linked to is one of its store's (422 naming
    /// `customer_id` otherwise), records their first card linked, and publishes `card.linked`.
    private static func link(_ card: Card, _ customers: CustomersRepository, at now: Date, in transaction: Transaction)
        async throws
    {
        guard let id = card.customerID else { return }
        try await transaction.lock(.customer(id))
        var customer = try await customers.customer(id, of: card.storeID, in: transaction.sql)
        if customer.cardLinked(at: now) {
            customer.touch(at: now)
            try await customers.update(customer, in: transaction)
        }
        transaction.publish(try PaymentsEvents.cardLinked(card, to: customer))
    }
}
