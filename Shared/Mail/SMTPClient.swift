import Foundation
public import NIOCore
public import NIOPosix
public import NIOSSL

/// Hands messages to an SMTP server (RFC 5321), one connection per message: TLS from the
/// start (`smtps`) or by STARTTLS, which is then required (credentials and messages never
/// cross in the clear), AUTH PLAIN or LOGIN when a user is set, then the envelope and the
/// message. A reply other than the one a step needs is `SMTPError.refused` with the server's
/// code and text (an AUTH step named without its credentials).
public struct SMTPClient: Sendable {
    public let settings: SMTPSettings
    /// The certificates trusted for the server: the system's unless a test names its own.
    public let tls: TLSConfiguration
    /// How long the connection may take; the whole conversation takes at most four times it.
    public let timeout: Duration
    /// The name this host gives in `EHLO`.
    public let clientName: String
    let group: any EventLoopGroup

    public init(
        settings: SMTPSettings, tls: TLSConfiguration = .makeClientConfiguration(), timeout: Duration = .seconds(30),
        clientName: String = "orderly.localhost", group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) {
        self.settings = settings
        self.tls = tls
        self.timeout = timeout
        self.clientName = clientName
        self.group = group
    }

    /// Sends `message` to its one recipient; returns the server's answer to the message (its
    /// queue id, as servers put it).
    @discardableResult
    public func send(_ message: MailMessage) async throws(SMTPError) -> String {
        let data = message.rendered(from: settings.from)
        do {
            return try await withThrowingTaskGroup(of: String.self) { group in
                group.addTask { try await converse(message: message, data: data) }
                group.addTask {
                    try await Task.sleep(for: timeout * 4)
                    throw SMTPError.timedOut(after: timeout * 4)
                }
                defer { group.cancelAll() }
                guard let answer = try await group.next() else { throw SMTPError.connection("no answer") }
                return answer
            }
        } catch let error as SMTPError {
            throw error
        } catch {
            throw .connection("\(error)")
        }
    }

    private func converse(message: MailMessage, data: String) async throws -> String {
        let context: NIOSSLContext
        do { context = try NIOSSLContext(configuration: tls) } catch { throw SMTPError.unusable("TLS: \(error)") }
        let host = settings.host
        let serverName = (try? SocketAddress(ipAddress: host, port: 0)) == nil ? host : nil
        let implicitTLS = settings.implicitTLS
        let channel: NIOAsyncChannel<SMTPReply, ByteBuffer>
        do {
            channel = try await ClientBootstrap(group: group)
                .connectTimeout(.seconds(max(1, timeout.components.seconds)))
                .connect(host: host, port: settings.port) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        if implicitTLS {
                            try channel.pipeline.syncOperations.addHandler(
                                NIOSSLClientHandler(context: context, serverHostname: serverName))
                        }
                        try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(SMTPReplyDecoder()))
                        return try NIOAsyncChannel<SMTPReply, ByteBuffer>(wrappingChannelSynchronously: channel)
                    }
                }
        } catch {
            throw SMTPError.connection("\(host):\(settings.port): \(error)")
        }
        return try await channel.executeThenClose { inbound, outbound in
            var replies = inbound.makeAsyncIterator()
            /// Sends `command` (nil: only waits) and returns the reply when its code is one of `codes`.
            func step(_ command: String?, shown: String? = nil, expecting codes: Set<Int>) async throws -> SMTPReply {
                if let command { try await outbound.write(ByteBuffer(string: command + "\r\n")) }
                guard let reply = try await replies.next() else {
                    throw SMTPError.connection("the server closed the connection")
                }
                guard codes.contains(reply.code) else {
                    throw SMTPError.refused(
                        command: shown ?? command.map { String($0.prefix(while: { $0 != " " })) } ?? "the connection",
                        code: reply.code, message: reply.text)
                }
                return reply
            }
            _ = try await step(nil, expecting: [220])
            var extensions = Self.extensions(try await step("EHLO \(clientName)", expecting: [250]))
            if !implicitTLS {
                guard extensions.keys.contains("STARTTLS") else {
                    throw SMTPError.unusable("the server offers no STARTTLS, and mail is not sent in the clear")
                }
                _ = try await step("STARTTLS", expecting: [220])
                // TLS goes in front of the reply decoder, on the channel's own loop.
                let raw = channel.channel
                try await raw.eventLoop.submit {
                    try raw.pipeline.syncOperations.addHandler(
                        NIOSSLClientHandler(context: context, serverHostname: serverName), position: .first)
                }.get()
                extensions = Self.extensions(try await step("EHLO \(clientName)", expecting: [250]))
            }
            if let user = settings.user {
                let mechanisms = Set((extensions["AUTH"] ?? "").uppercased().split(separator: " ").map(String.init))
                if mechanisms.contains("PLAIN") {
                    let token = Data("\u{0}\(user)\u{0}\(settings.password ?? "")".utf8).base64EncodedString()
                    _ = try await step("AUTH PLAIN \(token)", shown: "AUTH PLAIN", expecting: [235])
                } else if mechanisms.contains("LOGIN") {
                    _ = try await step("AUTH LOGIN", expecting: [334])
                    _ = try await step(Data(user.utf8).base64EncodedString(), shown: "AUTH LOGIN", expecting: [334])
                    _ = try await step(
                        Data((settings.password ?? "").utf8).base64EncodedString(), shown: "AUTH LOGIN",
                        expecting: [235])
                } else {
                    throw SMTPError.unusable("the server offers no AUTH PLAIN or LOGIN for the user set")
                }
            }
            _ = try await step("MAIL FROM:<\(settings.from.address)>", shown: "MAIL FROM", expecting: [250])
            _ = try await step("RCPT TO:<\(message.to.address)>", shown: "RCPT TO", expecting: [250, 251])
            _ = try await step("DATA", expecting: [354])
            let answer = try await step(Self.dotStuffed(data) + ".", shown: "the message", expecting: [250])
            _ = try? await step("QUIT", expecting: [221])
            return answer.text
        }
    }

    /// The extensions an `EHLO` reply lists (its lines after the greeting), by keyword, with
    /// their parameters: `["AUTH": "PLAIN LOGIN", "STARTTLS": ""]`.
    static func extensions(_ reply: SMTPReply) -> [String: String] {
        var found: [String: String] = [:]
        for line in reply.lines.dropFirst() {
            let parts = line.split(separator: " ", maxSplits: 1)
            guard let keyword = parts.first else { continue }
            found[keyword.uppercased()] = parts.count > 1 ? String(parts[1]) : ""
        }
        return found
    }

    /// `data` with a dot doubled at the start of each line (RFC 5321 §4.5.2), ending in CRLF.
    static func dotStuffed(_ data: String) -> String {
        var text = data.hasPrefix(".") ? "." + data : data
        text = text.replacingOccurrences(of: "\r\n.", with: "\r\n..")
        return text.hasSuffix("\r\n") ? text : text + "\r\n"
    }
}
