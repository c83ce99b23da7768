import Foundation
import Runtime

extension IPAddress {
    /// What login attempts are counted by: an IPv4 address whole, an IPv6 address by its /64,
    /// which one subscriber usually holds entirely.
    var rateLimitKey: String {
        bytes.count == 4
            ? bytes.map(String.init).joined(separator: ".")
            : bytes.prefix(8).map { String($0, radix: 16) }.joined(separator: ":") + "::/64"
    }

    /// The network a user is shown their sessions were used from: an IPv4 address's `/24`, an
    /// IPv6 address's `/48` (`203.0.113.0/24`, `2001:db8:12::/48`).
    var network: String {
        if bytes.count == 4 { return bytes.prefix(3).map(String.init).joined(separator: ".") + ".0/24" }
        let groups = stride(from: 0, to: 6, by: 2).map {
            String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16)
        }
        return groups.joined(separator: ":") + "::/48"
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

    /// Whether the peer (`GatewayContext.clientAddress`) is one of the trusted proxies.
    func isTrusted(peer: String?) -> Bool { peer.flatMap(IPAddress.init).map(isTrusted) ?? false }
}
