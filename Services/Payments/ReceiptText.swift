import Domain
import Foundation

/// A receipt laid out for an 80 mm printer: 42 characters a line, the store centred on top,
/// each item with its quantity and price, the totals, the VAT at each rate, the method.
enum ReceiptText {
    static let width = 42

    static func render(payment: Payment, number: Int64, header: ReceiptHeader?, at time: Date) -> String {
        func money(_ minorUnits: Int64) -> String {
            Money(minorUnits: minorUnits, currency: payment.currency).description
        }
        var lines = storeLines(header, payment.storeID)
        let rule = String(repeating: "-", count: width)
        lines += [rule, spread("Receipt #\(number)", localTime(time, in: header?.timezone))]
        if let staff = header?.staffName { lines += wrapped("Served by \(staff)") }
        lines.append(rule)
        for item in payment.items {
            lines += wrapped(item.name)
            lines.append(spread("  \(item.quantity) x \(money(item.unitPrice))", money(item.total)))
        }
        if payment.orderID != nil, payment.items.isEmpty {
            lines.append(spread("Order \(payment.orderID?.description.prefix(8) ?? "")", money(payment.subtotal)))
        }
        lines += [rule, spread("Subtotal", money(payment.subtotal))]
        var vatByRate: [Int: Int64] = [:]
        for item in payment.items { vatByRate[item.vatRateBP, default: 0] += item.vat }
        for (rate, vat) in vatByRate.sorted(by: { $0.key < $1.key }) where rate > 0 {
            lines.append(spread("  incl. VAT \(percent(rate))", money(vat)))
        }
        if payment.tip > 0 { lines.append(spread("Tip", money(payment.tip))) }
        lines.append(spread("TOTAL", money(payment.amount)))
        lines.append(spread("Paid by", payment.method.rawValue))
        if let tendered = payment.amountTendered, let change = payment.changeDue {
            lines += [spread("Tendered", money(tendered)), spread("Change", money(change))]
        }
        if let reference = payment.providerRef { lines.append(spread("Reference", String(reference.prefix(30)))) }
        if let settlement = payment.settlement {
            lines += wrapped("Settled \(settlement.amount) \(settlement.currency)")
            lines += wrapped("Tx \(settlement.txHash)")
        }
        lines += [rule, centred("Thank you")]
        return lines.joined(separator: "\n")
    }

    static func render(refund: Refund, of payment: Payment, number: Int64, saleNumber: Int64?, header: ReceiptHeader?)
        -> String
    {
        func money(_ minorUnits: Int64) -> String {
            Money(minorUnits: minorUnits, currency: payment.currency).description
        }
        let rule = String(repeating: "-", count: width)
        var lines = storeLines(header, payment.storeID)
        lines += [rule, spread("Refund #\(number)", localTime(refund.createdAt, in: header?.timezone))]
        if let saleNumber { lines.append("For receipt #\(saleNumber)") }
        lines += [rule] + wrapped("Reason: \(refund.reason)")
        for item in Receipt.returned(refund, of: payment) {
            lines += wrapped(item.name)
            lines.append("  \(item.quantity) returned to stock")
        }
        lines += [
            rule, spread("REFUNDED", money(refund.amount)), spread("To", payment.method.rawValue),
            spread("Left on the payment", money(payment.amount - payment.refundedAmount)), rule,
        ]
        return lines.joined(separator: "\n")
    }

    static func storeLines(_ header: ReceiptHeader?, _ store: StoreID) -> [String] {
        guard let header else { return [centred("Store \(store)")] }
        return [header.storeName, header.address, header.phone].compactMap { $0 }.map(centred)
    }

    /// `rate` basis points as a percentage: `1700` is `17%`, `850` is `8.5%`.
    static func percent(_ rate: Int) -> String {
        let (whole, fraction) = rate.quotientAndRemainder(dividingBy: 100)
        guard fraction != 0 else { return "\(whole)%" }
        var digits = String(fraction)
        if digits.count == 1 { digits = "0" + digits }
        while digits.hasSuffix("0") { digits.removeLast() }
        return "\(whole).\(digits)%"
    }

    /// The time in the store's time zone (UTC when it has none that is known).
    static func localTime(_ time: Date, in timezone: String?) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timezone.flatMap(TimeZone.init(identifier:)) ?? TimeZone(identifier: "UTC")!
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute], from: time)
        func two(_ value: Int?) -> String { value.map { $0 < 10 ? "0\($0)" : "\($0)" } ?? "00" }
        return "\(parts.year ?? 0)-\(two(parts.month))-\(two(parts.day)) \(two(parts.hour)):\(two(parts.minute))"
    }

    /// `left` and `right` on one line, apart; `right` on a line of its own when both do not fit.
    static func spread(_ left: String, _ right: String) -> String {
        let gap = width - left.count - right.count
        if gap >= 1 { return left + String(repeating: " ", count: gap) + right }
        return wrapped(left).joined(separator: "\n") + "\n" + String(repeating: " ", count: max(0, width - right.count))
            + right
    }

    static func centred(_ text: String) -> String {
        wrapped(text).map { line in String(repeating: " ", count: (width - line.count) / 2) + line }
            .joined(separator: "\n")
    }

    /// `text` cut into lines of at most `width` characters, at spaces where it can be.
    static func wrapped(_ text: String) -> [String] {
        var lines: [String] = []
        var current = ""
        for word in text.split(separator: " ") {
            var word = Substring(word)
            while word.count > width {
                if !current.isEmpty {
                    lines.append(current)
                    current = ""
                }
                lines.append(String(word.prefix(width)))
                word = word.dropFirst(width)
            }
            if current.isEmpty {
                current = String(word)
            } else if current.count + 1 + word.count <= width {
                current += " " + word
            } else {
                lines.append(current)
                current = String(word)
            }
        }
        if !current.isEmpty || lines.isEmpty { lines.append(current) }
        return lines
    }
}
