import Foundation

/// Collects what is wrong with each field of a request, so that one answer names them all.
///
/// ```swift
/// var problems = FieldProblems()
/// let name = problems.text(draft.name, "name", maximumLength: 200)
/// try problems.check()
/// ```
public struct FieldProblems: Sendable {
    public private(set) var reasons: [String: String] = [:]

    public init() {}

    /// Records that `field` is wrong; the first reason for a field is kept.
    public mutating func add(_ field: String, _ reason: String) {
        if reasons[field] == nil { reasons[field] = reason }
    }

    /// Whether no field is wrong.
    public var isEmpty: Bool { reasons.isEmpty }

    /// A required value: itself, or nil with `field` recorded as required. Unwrap what a
    /// validation needs together with the check, so that no value is forced after it:
    /// `guard let a, let b, problems.isEmpty else { throw problems.failure }`.
    public mutating func required<Value>(_ value: Value?, _ field: String) -> Value? {
        if value == nil { add(field, "is required") }
        return value
    }

    /// The error naming every field that is wrong.
    public var failure: OrderlyError { OrderlyError.invalidFields(reasons) }

    /// A required text: present, not blank, at most `maximumLength` characters; trimmed.
    public mutating func text(
        _ value: String?, _ field: String, maximumLength: Int = 200, allowingInvisible: Bool = false
    ) -> String {
        guard let value else {
            add(field, "is required")
            return ""
        }
        return optionalText(
            value, field, maximumLength: maximumLength, required: true, allowingInvisible: allowingInvisible) ?? ""
    }

    /// An optional text: blank counts as absent; trimmed; at most `maximumLength` code points;
    /// no control characters but line breaks and tabs, and, unless `allowingInvisible` (an
    /// emoji's joiners, a password), none of `Self.invisible`: names, addresses, notes and every
    /// other text one person writes for another to read show what they hold.
    public mutating func optionalText(
        _ value: String?, _ field: String, maximumLength: Int = 200, required: Bool = false,
        allowingInvisible: Bool = false
    ) -> String? {
        let trimmed = value?.trimmingWhitespace() ?? ""
        if trimmed.isEmpty {
            if required { add(field, value == nil ? "is required" : "must not be empty") }
            return nil
        }
        // Code points of the text as sent, as JSON Schema's maxLength counts them.
        if (value ?? "").unicodeScalars.count > maximumLength {
            add(field, "must be at most \(maximumLength) characters")
        }
        if trimmed.unicodeScalars.contains(where: { $0.value < 0x20 && $0 != "\n" && $0 != "\t" }) {
            add(field, "must not contain control characters")
        }
        if !allowingInvisible, trimmed.unicodeScalars.contains(where: { Self.invisible.contains($0.value) }) {
            add(field, "must not contain bidirectional controls or zero-width characters")
        }
        return trimmed
    }

    /// Characters that change what a text shows without showing themselves: the bidirectional
    /// controls (embeddings, overrides, isolates and marks, which reorder what a reader sees) and
    /// the zero-width ones (spaces, joiners, the word joiner and the byte-order mark, which make
    /// two different texts look alike).
    public static let invisible: Set<UInt32> = [
        0x061C, 0x200B, 0x200C, 0x200D, 0x200E, 0x200F, 0x202A, 0x202B, 0x202C, 0x202D, 0x202E, 0x2060, 0x2066,
        0x2067, 0x2068, 0x2069, 0xFEFF,
    ]

    /// An optional phone number of at most 32 characters: digits, spaces and `+()-`, three
    /// digits at least; blank counts as absent.
    public mutating func phone(_ value: String?, _ field: String, required: Bool = false) -> String? {
        let phone = optionalText(value, field, maximumLength: 32, required: required)
        if let phone, !OrderDraft.isPhoneNumber(phone) {
            add(field, "must be a phone number: digits, spaces, and + ( ) - only")
        }
        return phone
    }

    /// An optional http or https address of at most 2048 characters; blank counts as absent.
    public mutating func webAddress(_ value: String?, _ field: String) -> String? {
        guard let text = optionalText(value, field, maximumLength: 2048) else { return nil }
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), let host = url.host, !host.isEmpty,
            scheme == "https" || scheme == "http"
        else {
            add(field, "must be an http or https address")
            return nil
        }
        return text
    }

    /// An integer within `range`; nil (and a problem when `required`) when absent.
    public mutating func integer<Value: BinaryInteger>(
        _ value: Value?, _ field: String, in range: ClosedRange<Value>, required: Bool = true
    ) -> Value? {
        guard let value else {
            if required { add(field, "is required") }
            return nil
        }
        guard range.contains(value) else {
            add(field, "must be from \(range.lowerBound) to \(range.upperBound)")
            return nil
        }
        return value
    }

    /// Lines of products (`lines[0].product_id`, `lines[0].quantity`): each of 1 to
    /// `maximumQuantity` units, and each product once.
    public mutating func productLines(_ lines: [Reservation.Line], _ field: String, maximumQuantity: Int64) {
        var seen: Set<ProductID> = []
        for (index, line) in lines.enumerated() {
            _ = integer(line.quantity, "\(field)[\(index)].quantity", in: 1...maximumQuantity)
            if !seen.insert(line.productID).inserted {
                add("\(field)[\(index)].product_id", "appears in another line; give each product once")
            }
        }
    }

    /// Adds the fields a validation error names.
    public mutating func add(_ error: OrderlyError) {
        for (field, reason) in error.details ?? [:] {
            if case .string(let text) = reason { add(field, text) }
        }
    }

    /// Throws a validation error naming every bad field, if there is one.
    public func check() throws(OrderlyError) {
        guard reasons.isEmpty else { throw OrderlyError.invalidFields(reasons) }
    }
}

extension String {
    /// The string without leading and trailing spaces, tabs and line breaks.
    public func trimmingWhitespace() -> String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }) else { return "" }
        let last = scalars.lastIndex(where: { !$0.properties.isWhitespace })!
        return String(scalars[first...last])
    }
}

extension FieldProblems {
    /// A locale: a BCP 47 tag (`User.isLocale`).
    public mutating func locale(_ value: String, _ field: String = "locale") {
        if !User.isLocale(value) { add(field, "must be a BCP 47 language tag such as en, he or ar-EG") }
    }
}
