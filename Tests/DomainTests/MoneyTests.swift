import Domain
import Foundation
import Testing

@Suite("Money")
struct MoneyTests {
    @Test(
        "formats minor units with the currency's decimals",
        arguments: [
            (Int64(3500), "ILS", "35.00 ILS"),
            (Int64(5), "ILS", "0.05 ILS"),
            (Int64(-10500), "ILS", "-105.00 ILS"),
            (Int64(0), "EUR", "0.00 EUR"),
            (Int64(1200), "JPY", "1200 JPY"),
            (Int64(1234), "KWD", "1.234 KWD"),
        ])
    func formatting(minorUnits: Int64, currency: String, expected: String) throws {
        let money = Money(minorUnits: minorUnits, currency: try #require(CurrencyCode(currency)))
        #expect(money.description == expected)
    }

    @Test("adds and subtracts within one currency")
    func arithmetic() throws {
        let a = Money(minorUnits: 3500, currency: .ils)
        let b = Money(minorUnits: 7000, currency: .ils)
        #expect(try a.adding(b) == Money(minorUnits: 10500, currency: .ils))
        #expect(try a.subtracting(b) == Money(minorUnits: -3500, currency: .ils))
        #expect(try a.multiplied(by: 3) == Money(minorUnits: 10500, currency: .ils))
    }

    @Test("refuses to mix currencies")
    func currencyMismatch() {
        let shekels = Money(minorUnits: 100, currency: .ils)
        let euros = Money(minorUnits: 100, currency: .eur)
        #expect(throws: MoneyError.currencyMismatch(.ils, .eur)) { try shekels.adding(euros) }
        #expect(throws: MoneyError.currencyMismatch(.ils, .eur)) { try shekels.subtracting(euros) }
    }

    @Test("reports overflow instead of trapping")
    func overflow() {
        let huge = Money(minorUnits: .max, currency: .ils)
        #expect(throws: MoneyError.overflow) { try huge.adding(Money(minorUnits: 1, currency: .ils)) }
        #expect(throws: MoneyError.overflow) {
            try Money(minorUnits: .min, currency: .ils).subtracting(Money(minorUnits: 1, currency: .ils))
        }
        #expect(throws: MoneyError.overflow) { try huge.multiplied(by: 2) }
    }

    @Test(
        "currency codes are three upper-case letters",
        arguments: [
            ("ILS", true), ("usd", false), ("EU", false), ("EURO", false), ("E1R", false), ("", false), ("ÉUR", false),
        ])
    func currencyValidation(code: String, valid: Bool) {
        #expect((CurrencyCode(code) != nil) == valid)
    }

    @Test("encodes as minor units and a code, and refuses a bad code when decoding")
    func coding() throws {
        let money = Money(minorUnits: 3500, currency: .ils)
        let json = try JSONEncoder().encode(money)
        #expect(try JSONDecoder().decode(Money.self, from: json) == money)
        let bad = Data(#"{"minorUnits": 1, "currency": "ils"}"#.utf8)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(Money.self, from: bad) }
    }
}
