import Domain
public import Foundation
import NIOCore
import NIOSSL
import NIOTLS
import Synchronization

/// TLS for Wire connections, mutual: every process holds a certificate and its key, signed by
/// the operator's internal certificate authority, and trusts only that authority. A server
/// accepts only callers whose certificate the authority signed; a caller accepts only a server
/// whose certificate the authority signed for the host it dialled (its DNS name or IP address).
/// The hello's proof still names the calling service; TLS keeps the traffic private and
/// shuts out hosts the authority never vouched for. TLS 1.3 only: both ends are Orderly's.
public struct WireTLS: Sendable {
    /// The contexts made from the files, and what they were made from.
    private struct Loaded: Sendable {
        var server: NIOSSLContext
        var client: NIOSSLContext
        var certificateExpiry: Date
        var authorityExpiry: Date
        var files: [Data]
    }

    private let paths: (certificate: String, key: String, authority: String)
    /// Shared by every copy: a reload reaches the server and the clients that hold one.
    private let box: Box

    private final class Box: Sendable {
        let loaded: Mutex<Loaded>
        init(_ loaded: Loaded) { self.loaded = Mutex(loaded) }
    }

    /// When this process's certificate stops being valid, and the earliest of its authority's.
    public var certificateExpiry: Date { box.loaded.withLock { $0.certificateExpiry } }
    public var authorityExpiry: Date { box.loaded.withLock { $0.authorityExpiry } }

    /// Why TLS could not be set up from the given files.
    public struct SetupError: Error, Sendable, CustomStringConvertible {
        public var description: String
    }

    /// Reads PEM files: this process's certificate chain, its private key and the authority's
    /// certificate(s).
    public init(certificatePath: String, keyPath: String, authorityPath: String) throws(SetupError) {
        paths = (certificatePath, keyPath, authorityPath)
        box = Box(try Self.load(paths, Self.read(paths)))
    }

    /// Reads the files again when their contents changed (a renewed certificate, an authority
    /// rolled over: a Kubernetes Secret's volume is updated in place) and makes new contexts from
    /// them, for the connections made from then on; connections open go on as they are. Answers
    /// whether it did. Files that do not make a context are refused, and the previous contexts
    /// kept.
    public func reloadIfChanged() throws(SetupError) -> Bool {
        let files = Self.read(paths)
        guard files.allSatisfy({ $0 != nil }), files.map({ $0! }) != box.loaded.withLock({ $0.files }) else {
            return false
        }
        let fresh = try Self.load(paths, files)
        box.loaded.withLock { $0 = fresh }
        return true
    }

    /// The three files' contents, nil for one that cannot be read.
    private static func read(_ paths: (certificate: String, key: String, authority: String)) -> [Data?] {
        [paths.certificate, paths.key, paths.authority].map { FileManager.default.contents(atPath: $0) }
    }

    /// Contexts from the files' contents, `files` as `read(paths)` gave them.
    private static func load(_ paths: (certificate: String, key: String, authority: String), _ files: [Data?])
        throws(SetupError) -> Loaded
    {
        let (certificatePath, keyPath, authorityPath) = paths
        func load<T>(_ what: String, _ path: String, _ data: Data?, _ parse: ([UInt8]) throws -> T)
            throws(SetupError) -> T
        {
            guard let data else { throw SetupError(description: "\(what) '\(path)' cannot be read") }
            do {
                return try parse(Array(data))
            } catch {
                throw SetupError(description: "\(what) '\(path)' is not PEM: \(error)")
            }
        }
        let chain = try load("certificate", certificatePath, files[0]) { try NIOSSLCertificate.fromPEMBytes($0) }
        let key = try load("key", keyPath, files[1]) { try NIOSSLPrivateKey(bytes: $0, format: .pem) }
        let authority = try load("authority", authorityPath, files[2]) { try NIOSSLCertificate.fromPEMBytes($0) }
        guard !chain.isEmpty, !authority.isEmpty else {
            throw SetupError(description: "no certificate in '\(chain.isEmpty ? certificatePath : authorityPath)'")
        }
        var server = TLSConfiguration.makeServerConfiguration(
            certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key))
        server.trustRoots = .certificates(authority)
        server.certificateVerification = .noHostnameVerification
        server.minimumTLSVersion = .tlsv13
        var client = TLSConfiguration.makeClientConfiguration()
        client.certificateChain = chain.map { .certificate($0) }
        client.privateKey = .privateKey(key)
        client.trustRoots = .certificates(authority)
        client.certificateVerification = .fullVerification
        client.minimumTLSVersion = .tlsv13
        do {
            return Loaded(
                server: try NIOSSLContext(configuration: server), client: try NIOSSLContext(configuration: client),
                certificateExpiry: expiry(of: [chain[0]]), authorityExpiry: expiry(of: authority),
                files: files.map { $0 ?? Data() })
        } catch {
            throw SetupError(description: "the certificate and key do not make a TLS context: \(error)")
        }
    }

    /// The earliest end of validity among `certificates`.
    static func expiry(of certificates: [NIOSSLCertificate]) -> Date {
        Date(timeIntervalSince1970: TimeInterval(certificates.map(\.notValidAfter).min() ?? 0))
    }

    /// The earliest end of validity among the certificates of a PEM file (a database's or a
    /// mail server's authorities); nil when it holds none that can be read.
    public static func expiry(ofPEMFile path: String) -> Date? {
        guard let certificates = try? NIOSSLCertificate.fromPEMFile(path), !certificates.isEmpty else { return nil }
        return expiry(of: certificates)
    }

    /// The first handler of an accepted connection's pipeline.
    func serverHandler() -> NIOSSLServerHandler {
        NIOSSLServerHandler(context: box.loaded.withLock { $0.server })
    }

    /// What a caller learns of its TLS session: `handshake` completes when TLS is up, or fails
    /// with the reason (a certificate refused, the connection closed, no handshake in time);
    /// `failure` keeps the first error even after that, since with TLS 1.3 a server refuses the
    /// caller's certificate only after the caller's side of the handshake is done.
    final class ClientSession: Sendable {
        let handshake: EventLoopPromise<Void>
        let failure = Mutex<String?>(nil)

        init(handshake: EventLoopPromise<Void>) { self.handshake = handshake }
    }

    /// The first handlers of a connection to `host`, which the server's certificate must name:
    /// TLS, and a watcher that reports to `session`.
    func clientHandlers(host: String, session: ClientSession, timeout: TimeAmount) throws -> [any ChannelHandler] {
        let isAddress = (try? SocketAddress(ipAddress: host, port: 0)) != nil
        return [
            try NIOSSLClientHandler(context: box.loaded.withLock { $0.client }, serverHostname: isAddress ? nil : host),
            SessionWatcher(session: session, timeout: timeout),
        ]
    }

    private final class SessionWatcher: ChannelInboundHandler {
        typealias InboundIn = NIOAny
        private let session: ClientSession
        private let timeout: TimeAmount
        private var timer: Scheduled<Void>?
        private var done = false

        init(session: ClientSession, timeout: TimeAmount) {
            self.session = session
            self.timeout = timeout
        }

        func handlerAdded(context: ChannelHandlerContext) {
            let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
            timer = context.eventLoop.scheduleTask(in: timeout) {
                let (watcher, context) = bound.value
                watcher.finish(.failure(ChannelError.connectTimeout(watcher.timeout)))
                context.close(promise: nil)
            }
        }

        func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
            if case .handshakeCompleted = event as? TLSUserEvent { finish(.success(())) }
            context.fireUserInboundEventTriggered(event)
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            session.failure.withLock { $0 = $0 ?? "\(error)" }
            finish(.failure(error))
            context.fireErrorCaught(error)
        }

        func channelInactive(context: ChannelHandlerContext) {
            finish(.failure(ChannelError.eof))
            context.fireChannelInactive()
        }

        func handlerRemoved(context: ChannelHandlerContext) {
            finish(.failure(ChannelError.ioOnClosedChannel))
        }

        private func finish(_ result: Result<Void, any Error>) {
            timer?.cancel()
            guard !done else { return }
            done = true
            session.handshake.completeWith(result)
        }
    }
}
