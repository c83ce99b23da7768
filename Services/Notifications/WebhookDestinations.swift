import AsyncHTTPClient
import Foundation
import NIOCore
import NIOPosix
import NIOSSL
public import Runtime
import Wire

/// Where deliveries may go. A destination's every address must be public, or in the networks
/// the operator allows: not loopback, private, shared, link-local (where cloud metadata
/// services answer, `169.254.169.254`), multicast or reserved, in IPv4 or IPv6. The address
/// checked is the one connected to: the name is resolved here, once, and the connection is
/// made to that address. Endpoints are `https` unless the operator allows plain `http`.
public struct WebhookDestinations: Sendable {
    let allowed: [IPNetwork]
    let plainHTTP: Bool

    static let refused: [IPNetwork] = [
        "0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16", "172.16.0.0/12",
        "192.0.0.0/24", "192.0.2.0/24", "192.168.0.0/16", "198.18.0.0/15", "198.51.100.0/24", "203.0.113.0/24",
        "224.0.0.0/4", "240.0.0.0/4",
        // IPv6: unspecified, loopback and IPv4-compatible (`::/96`); the translations and
        // tunnels that carry an IPv4 address inside (NAT64, 6to4, Teredo); discard,
        // documentation, unique local, site-local (deprecated, still routed by some), link-local
        // and multicast. IPv4-mapped addresses (`::ffff:0:0/96`) are checked as their IPv4 address.
        "::/96", "64:ff9b::/96", "64:ff9b:1::/48", "2002::/16", "2001::/32", "100::/64", "2001:db8::/32",
        "fc00::/7", "fec0::/10", "fe80::/10", "ff00::/8",
    ].compactMap { IPNetwork($0) }

    public init(allowed: [IPNetwork], plainHTTP: Bool = false) {
        self.allowed = allowed
        self.plainHTTP = plainHTTP
    }

    /// Whether a delivery may use `scheme`, lower-cased.
    func permits(scheme: String) -> Bool { scheme == "https" || plainHTTP && scheme == "http" }

    /// Whether a delivery may connect to `address`.
    public func permits(_ address: IPAddress) -> Bool {
        allowed.contains { $0.contains(address) } || !Self.refused.contains { $0.contains(address) }
    }

    /// A client for one attempt that connects `host` to `address` alone (the address checked),
    /// follows no redirect, and takes a refused connection as the attempt's failure rather than
    /// trying again until the timeout: the caller's backoff decides when to try again.
    static func client(connecting host: String, to address: String, timeout: TimeAmount, tls: TLSConfiguration? = nil)
        -> HTTPClient
    {
        var configuration = HTTPClient.Configuration()
        configuration.redirectConfiguration = .disallow
        configuration.timeout = .init(connect: timeout)
        configuration.dnsOverride = [host: address]
        configuration.connectionPool.retryConnectionEstablishment = false
        if let tls { configuration.tlsConfiguration = tls }
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    /// The address to connect to for `host`: its first, when every one it resolves to is
    /// permitted.
    func address(of host: String) async throws(DeliveryFailure) -> String {
        if let literal = IPAddress(host) {
            guard permits(literal) else { throw .refused(host) }
            return host
        }
        let resolved: [String]
        do {
            resolved = try await HostResolver.system.addresses(host)
        } catch {
            throw .unreachable("cannot resolve \(host)")
        }
        guard let first = resolved.first else { throw .unreachable("cannot resolve \(host)") }
        guard resolved.allSatisfy({ IPAddress($0).map(permits) ?? false }) else { throw .refused(host) }
        return first
    }
}
