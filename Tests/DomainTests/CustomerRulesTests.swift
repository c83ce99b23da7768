import Contracts
import Domain
import Foundation
import Testing

/// The rules of a store's customer records and NFC cards, and of a payment naming them.
@Suite("Customers and cards")
struct CustomerRulesTests {
    static let store = StoreID()
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    @Test("a card's uid is kept as upper-case hex of 4 to 10 bytes, and printed with colons")
    func uids() {
        #expect(Card.normalizedUID("04:a2:24:b1") == "04A224B1")
        #expect(Card.normalizedUID("04 A2 24 B1 C2 D3 80") == "04A224B1C2D380")
        #expect(Card.normalizedUID("04-a2-24-b1-c2-d3-80-11-22-33") == "04A224B1C2D380112233")
        for bad in [
            "", "04A224", "04A224B", "04A224B1C2D380112233FF", "04A2 24ZZ", "0x04A224B1", "04A2\u{0}24B1",
            "0 4A224B1", "04::A2:24:B1", ":04A224B1", "04A224B1 ",
        ] {
            #expect(Card.normalizedUID(bad) == nil, "\(bad)")
        }
        let card = Card(id: CardID(), storeID: Self.store, uid: "04A224B1C2D380", createdAt: Self.now)
        #expect(card.uidDisplay == "04:A2:24:B1:C2:D3:80" && card.status == .active)
    }

    @Test("only an active card pays; the others are refused with card_blocked")
    func cardsThatPay() throws {
        var card = Card(id: CardID(), storeID: Self.store, uid: "04A224B1", createdAt: Self.now)
        try card.checkPays()
        for status in [CardStatus.inactive, .blocked] {
            card.status = status
            #expect(throws: OrderlyError.self) { try card.checkPays() }
            do { try card.checkPays() } catch {
                #expect(error.reason == .cardBlocked && error.code == .failedPrecondition)
            }
        }
    }

    @Test("a card's patch names what it cannot change; a blank name clears it; unlinking forgets the customer")
    func cardPatches() throws {
        var card = Card(id: CardID(), storeID: Self.store, uid: "04A224B1", createdAt: Self.now)
        card = try CardDraft(name: "Dana's", customerID: CustomerID()).validated(updating: card)
        #expect(card.name == "Dana's" && card.customerID != nil)
        card = try CardDraft(name: "  ", unlinkCustomer: true).validated(updating: card)
        #expect(card.name == nil && card.customerID == nil)
        do {
            _ = try CardDraft(
                id: CardID(), uid: "04A224B2", customerID: CustomerID(), unlinkCustomer: true, walletAddress: "r 1"
            )
            .validated(updating: card)
            Issue.record("a bad patch was taken")
        } catch {
            #expect(Set(error.fields) == ["id", "uid", "unlink_customer", "wallet_address"], "\(error.fields)")
        }
        #expect(throws: OrderlyError.self) { try CardDraft(uid: "nope").validUID() }
        #expect(throws: OrderlyError.self) { try CardDraft().validUID() }
        #expect(try CardDraft(uid: "04:a2:24:b1").validUID() == "04A224B1")
        do {
            _ = try CardDraft(uid: "nope", unlinkCustomer: false).validated(creatingIn: Self.store, at: Self.now)
            Issue.record("a bad card was taken")
        } catch {
            #expect(Set(error.fields) == ["uid", "unlink_customer"], "\(error.fields)")
        }
        let new = try CardDraft(uid: "04:a2:24:b1", name: " Dana ").validated(creatingIn: Self.store, at: Self.now)
        #expect(new.uid == "04A224B1" && new.name == "Dana" && new.status == .active)
    }

    @Test("a customer record is named by something, a name or another field; each bad field is named at once")
    func customerFields() throws {
        do {
            _ = try CustomerDraft(
                email: "dana@", phone: "call me", logoURL: "ftp://logo", walletAddress: "r N7", unlinkUser: true
            ).validated(creatingIn: Self.store, at: Self.now)
            Issue.record("a bad record was taken")
        } catch {
            #expect(
                Set(error.fields) == ["email", "phone", "logo_url", "wallet_address", "unlink_user"],
                "\(error.fields)")
        }
        do {
            _ = try CustomerDraft(name: " ", notes: "regular").validated(creatingIn: Self.store, at: Self.now)
            Issue.record("a record named by nothing was taken")
        } catch {
            #expect(error.fields == ["name"], "\(error.fields)")
        }
        let byWallet = try CustomerDraft(walletAddress: "rN7n7otQDd6FczFgLdSqtcsAUxDkw6fzRH")
            .validated(creatingIn: Self.store, at: Self.now)
        #expect(byWallet.name == nil && byWallet.label == "rN7n7otQDd6FczFgLdSqtcsAUxDkw6fzRH")
        #expect(throws: OrderlyError.self) {
            try CustomerDraft(walletAddress: "").validated(updating: byWallet, at: Self.now)
        }
        var customer = try CustomerDraft(
            name: " Dana Levi ", email: "Dana@Example.com", phone: "+972 50-123-4567",
            walletAddress: "rN7n7otQDd6FczFgLdSqtcsAUxDkw6fzRH", userID: UserID()
        ).validated(creatingIn: Self.store, at: Self.now)
        #expect(customer.name == "Dana Levi" && customer.email == "dana@example.com" && customer.userID != nil)
        customer = try CustomerDraft(email: "", unlinkUser: true).validated(updating: customer, at: Self.now)
        #expect(customer.email == nil && customer.userID == nil && customer.name == "Dana Levi")
    }

    @Test("milestones are set the first time only: a card linked, a payment, auto-sign turned on")
    func milestones() throws {
        var customer = Customer(id: CustomerID(), storeID: Self.store, createdAt: Self.now)
        let later = Self.now.addingTimeInterval(60)
        #expect(customer.cardLinked(at: Self.now) && !customer.cardLinked(at: later))
        #expect(customer.paid(at: Self.now) && !customer.paid(at: later))
        customer = try CustomerDraft(autoSign: false).validated(updating: customer, at: Self.now)
        #expect(customer.milestones.autoSignEnabledAt == nil)
        customer = try CustomerDraft(autoSign: true).validated(updating: customer, at: Self.now)
        customer = try CustomerDraft(autoSign: false).validated(updating: customer, at: later)
        customer = try CustomerDraft(autoSign: true).validated(updating: customer, at: later)
        #expect(
            customer.milestones
                == Customer.Milestones(
                    firstCardLinkedAt: Self.now, firstPaymentAt: Self.now, autoSignEnabledAt: Self.now))
    }

    @Test("an nfc payment names the card tapped, and only an nfc payment does")
    func nfcPayments() throws {
        let line = PaymentDraft.Item(name: "Tea", unitPrice: 900, quantity: 1, vatRateBP: 1700)
        let valid = try PaymentDraft(items: [line], method: .nfc, cardUID: "04:a2:24:b1").validated()
        #expect(valid.cardUID == "04A224B1")
        for (draft, field) in [
            (PaymentDraft(items: [line], method: .nfc), "card_uid"),
            (PaymentDraft(items: [line], method: .nfc, cardUID: "04"), "card_uid"),
            (PaymentDraft(items: [line], method: .cash, cardUID: "04A224B1"), "card_uid"),
        ] {
            do {
                _ = try draft.validated()
                Issue.record("\(draft) was taken")
            } catch {
                #expect(error.fields == [field])
            }
        }
    }

    @Test("a payment keeps its customer record and account apart; one written before records reads its account")
    func paymentCustomers() throws {
        var payment = Payment(
            id: PaymentID(), storeID: Self.store, orderID: nil, customerID: CustomerID(), subtotal: 100, tip: 0,
            currency: CurrencyCode("ILS")!, method: .nfc, status: .pending, staffID: UserID(), createdAt: Self.now)
        for account in [nil, UserID()] {
            payment.customerUserID = account
            let read = try JSONDecoder().decode(Payment.self, from: JSONEncoder().encode(payment))
            #expect(read == payment)
        }
        let account = UserID()
        var legacy = try JSONSerialization.jsonObject(with: JSONEncoder().encode(payment)) as! [String: Any]
        legacy.removeValue(forKey: "customer_user_id")
        legacy["customer_id"] = account.description
        let read = try JSONDecoder().decode(Payment.self, from: JSONSerialization.data(withJSONObject: legacy))
        #expect(read.customerUserID == account && read.customerID == nil)
    }
}

extension OrderlyError {
    /// The fields a validation error names.
    fileprivate var fields: [String] { (details ?? [:]).keys.sorted() }
}
