import Foundation
import NIOPosix

/// Finds every address a host name stands for: the Wire pool spreads calls over all of them (a
/// DNS name with a record per replica, as compose and headless Kubernetes services give), and
/// webhooks check each before connecting.
public struct HostResolver: Sendable {
    /// The addresses of a name, as text (`10.0.0.7`, `fd00::7`), without repeats.
    public var addresses: @Sendable (String) async throws -> [String]

    public init(addresses: @escaping @Sendable (String) async throws -> [String]) {
        self.addresses = addresses
    }

    /// The system's resolver (`getaddrinfo`: the hosts file, then DNS), run on NIO's thread pool
    /// so that no event loop or task waits on it. An address literal is itself.
    public static let system = HostResolver { host in
        if isAddress(host) { return [host] }
        return try await NIOThreadPool.singleton.runIfActive { try getaddrinfoAddresses(host) }
    }

    /// Whether `text` is an IPv4 or IPv6 address rather than a name.
    public static func isAddress(_ text: String) -> Bool {
        var v4 = in_addr()
        var v6 = in6_addr()
        return inet_pton(AF_INET, text, &v4) == 1 || inet_pton(AF_INET6, text, &v6) == 1
    }

    private static func getaddrinfoAddresses(_ host: String) throws -> [String] {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, nil, &hints, &list)
        guard status == 0, let list else {
            throw ResolutionFailure(host: host, reason: String(cString: gai_strerror(status)))
        }
        defer { freeaddrinfo(list) }
        var addresses: [String] = []
        var entry: UnsafeMutablePointer<addrinfo>? = list
        while let current = entry {
            var text = [CChar](repeating: 0, count: Int(NI_MAXHOST))
            if getnameinfo(
                current.pointee.ai_addr, current.pointee.ai_addrlen, &text, socklen_t(text.count), nil, 0,
                NI_NUMERICHOST) == 0
            {
                let address = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                if !addresses.contains(address) { addresses.append(address) }
            }
            entry = current.pointee.ai_next
        }
        return addresses
    }

    /// A name that did not resolve.
    public struct ResolutionFailure: Error, CustomStringConvertible {
        public var host: String
        public var reason: String
        public var description: String { "cannot resolve \(host): \(reason)" }
    }
}
