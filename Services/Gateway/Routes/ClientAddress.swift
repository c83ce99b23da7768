import Foundation

/// An IPv4 or IPv6 address as its bytes (4 or 16), read with `inet_pton`; an IPv4-mapped IPv6
/// address (`::ffff:1.2.3.4`) is its IPv4 address.
struct IPAddress: Hashable, Sendable {
    var bytes: [UInt8]

    init?(_ text: some StringProtocol) {
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

    /// What login attempts are counted by: an IPv4 address whole, an IPv6 address by its /64,
    /// which one subscriber usually holds entirely.
    var rateLimitKey: String {
        bytes.count == 4
            ? bytes.map(String.init).joined(separator: ".")
            : bytes.prefix(8).map { String($0, radix: 16) }.joined(separator: ":") + "::/64"
    }
}

/// An address or a network (`10.0.0.0/8`, `fd00::/8`, `192.0.2.7`).
struct IPNetwork: Hashable, Sendable {
    var address: IPAddress
    var prefixLength: Int

    init?(_ text: some StringProtocol) {
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

    func contains(_ other: IPAddress) -> Bool {
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

/// Who the client is: the peer's address, unless the peer is one of the configured proxies;
/// then the nearest address in `X-Forwarded-For` (read from the right) that is not a proxy. A
/// client cannot choose its address by sending the header itself, and a malformed header is
/// ignored.
struct ClientAddressResolver: Sendable {
    var trustedProxies: [IPNetwork]

    func client(peer: String?, forwardedFor: [String]) -> IPAddress? {
        guard let peer = peer.flatMap(IPAddress.init) else { return nil }
        guard isTrusted(peer) else { return peer }
        let chain = forwardedFor.flatMap { $0.split(separator: ",") }.map { IPAddress($0) }
        guard !chain.isEmpty, chain.allSatisfy({ $0 != nil }) else { return peer }
        var client = peer
        for hop in chain.reversed().compactMap({ $0 }) {
            client = hop
            if !isTrusted(hop) { break }
        }
        return client
    }

    private func isTrusted(_ address: IPAddress) -> Bool { trustedProxies.contains { $0.contains(address) } }
}
