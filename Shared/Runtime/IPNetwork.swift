import Foundation

/// An IPv4 or IPv6 address as its bytes (4 or 16), read with `inet_pton`; an IPv4-mapped IPv6
/// address (`::ffff:1.2.3.4`) is its IPv4 address.
public struct IPAddress: Hashable, Sendable {
    public var bytes: [UInt8]

    public init?(_ text: some StringProtocol) {
        let text = String(text).trimmingCharacters(in: .whitespaces)
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            bytes = withUnsafeBytes(of: v4) { Array($0) }
            return
        }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, text, &v6) == 1 else { return nil }
        let all = withUnsafeBytes(of: v6) { Array($0) }
        bytes = all.prefix(12) == [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff] ? Array(all.suffix(4)) : all
    }

}

/// An address or a network (`10.0.0.0/8`, `fd00::/8`, `192.0.2.7`).
public struct IPNetwork: Hashable, Sendable {
    public var address: IPAddress
    public var prefixLength: Int

    public init?(_ text: some StringProtocol) {
        let parts = text.split(separator: "/", maxSplits: 1)
        guard let first = parts.first, let address = IPAddress(first) else { return nil }
        let bits = address.bytes.count * 8
        if parts.count == 2 {
            guard let length = Int(parts[1]), (0...bits).contains(length) else { return nil }
            prefixLength = length
        } else {
            prefixLength = bits
        }
        self.address = address
    }

    public func contains(_ other: IPAddress) -> Bool {
        guard other.bytes.count == address.bytes.count else { return false }
        var remaining = prefixLength
        for (mine, theirs) in zip(address.bytes, other.bytes) where remaining > 0 {
            let mask: UInt8 = remaining >= 8 ? 0xff : ~(0xff >> UInt8(remaining))
            if mine & mask != theirs & mask { return false }
            remaining -= 8
        }
        return true
    }
}
