public import Domain
public import Foundation
import WireContract

/// A change of a product's stock as a client asks it: by `adjustment` (signed) or to
/// `new_quantity`, one of them, with a reason.
public struct StockAdjustment: Codable, Sendable, Hashable {
    public var adjustment: Int64?
    public var newQuantity: Int64?
    public var reason: StockReason?
    public var notes: String?
    public var reference: String?
    public var clientCreatedAt: Date?

    public init(
        adjustment: Int64? = nil, newQuantity: Int64? = nil, reason: StockReason? = nil, notes: String? = nil,
        reference: String? = nil, clientCreatedAt: Date? = nil
    ) {
        self.adjustment = adjustment
        self.newQuantity = newQuantity
        self.reason = reason
        self.notes = notes
        self.reference = reference
        self.clientCreatedAt = clientCreatedAt
    }

    enum CodingKeys: String, CodingKey {
        case adjustment, reason, notes, reference
        case newQuantity = "new_quantity"
        case clientCreatedAt = "client_created_at"
    }

    /// The checked request: its text trimmed; every bad field named at once.
    public func validated() throws(OrderlyError) -> (
        change: StockChange, reason: StockReason, notes: String?, reference: String?
    ) {
        var problems = FieldProblems()
        let limit = Product.maximumQuantity
        var change = StockChange.adjustment(0)
        switch (adjustment, newQuantity) {
        case (nil, nil):
            problems.add("adjustment", "or new_quantity is required")
        case (.some, .some):
            problems.add("new_quantity", "cannot be given with adjustment")
        case (let adjustment?, nil):
            if adjustment == 0 || adjustment.magnitude > limit.magnitude {
                problems.add("adjustment", "must be from -\(limit) to \(limit), and not 0")
            }
            change = .adjustment(adjustment)
        case (nil, let quantity?):
            if let quantity = problems.integer(quantity, "new_quantity", in: 0...limit) {
                change = .newQuantity(quantity)
            }
        }
        if reason == nil { problems.add("reason", "is required") }
        if reason == .initial { problems.add("reason", "initial is recorded when the product is created") }
        let notes = problems.optionalText(notes, "notes", maximumLength: 1000)
        let reference = problems.optionalText(reference, "reference")
        try problems.check()
        return (change, reason ?? .adjustment, notes, reference)
    }
}
