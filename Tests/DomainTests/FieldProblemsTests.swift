import Domain
import Foundation
import Testing

/// How a request's problems are gathered: every bad field named at once, by its path.
@Suite("Field problems")
struct FieldProblemsTests {
    @Test("lines of products name each line out of range and each product given again, by its index")
    func productLines() throws {
        let (tea, cake) = (ProductID(), ProductID())
        var problems = FieldProblems()
        problems.productLines(
            [
                Reservation.Line(productID: tea, quantity: 2), Reservation.Line(productID: cake, quantity: 0),
                Reservation.Line(productID: tea, quantity: 11),
            ], "restock_lines", maximumQuantity: 10)
        #expect(
            problems.reasons == [
                "restock_lines[1].quantity": "must be from 1 to 10",
                "restock_lines[2].quantity": "must be from 1 to 10",
                "restock_lines[2].product_id": "appears in another line; give each product once",
            ])
        var clean = FieldProblems()
        clean.productLines([Reservation.Line(productID: tea, quantity: 10)], "lines", maximumQuantity: 10)
        #expect(clean.isEmpty)
    }
}
