import Foundation

/// An e-mail address with perhaps a display name, as a header shows it: `Orderly
/// <no-reply@example.com>`. Nothing in it can end a header line or an SMTP command.
public struct MailAddress: Sendable, Hashable, CustomStringConvertible {
    public var name: String?
    public var address: String

    /// `text` as `Name <address>` or a bare address: the address has one `@` with something on
    /// each side, no spaces, angle brackets or control characters; nil otherwise.
    public init?(_ text: String) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed.hasSuffix(">"), let open = trimmed.lastIndex(of: "<") {
            let name = trimmed[..<open].trimmingCharacters(in: .whitespaces)
            let address = String(trimmed[trimmed.index(after: open)..<trimmed.index(before: trimmed.endIndex)])
            self.init(name: name.isEmpty ? nil : name.trimmingCharacters(in: ["\""]), address: address)
        } else {
            self.init(name: nil, address: trimmed)
        }
    }

    /// `address` with `name`, when the address is one (see `init?(_:)`) and the name holds no
    /// control characters.
    public init?(name: String?, address: String) {
        let parts = address.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty, address.utf8.count <= 254,
            address.unicodeScalars.allSatisfy({
                $0.value > 0x20 && $0.value != 0x7F && !"<>()[],;:\"\\".unicodeScalars.contains($0)
            }),
            name?.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value != 0x7F }) ?? true
        else { return nil }
        self.name = name
        self.address = address
    }

    public var description: String { name.map { "\($0) <\(address)>" } ?? address }
}
