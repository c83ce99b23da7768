import Foundation
import Logging
import Mail
import Metrics
import Runtime
import ServiceLifecycle

/// Sends what the mail outbox holds: at once when rung (a handler that wrote mail rings once
/// its transaction commits), and every few seconds for what other replicas wrote and what
/// falls due again. A message the server refuses for good (a 5xx: no such mailbox, bad
/// credentials) is dead at once; anything else is tried again after a backoff (30 seconds
/// doubled per attempt, at most an hour, spread by ±50 %) until its tenth attempt, some
/// five hours on. With no SMTP server configured (`make run`), each message goes to the log
/// with its link instead, so that a local user can follow it.
struct MailSender: Service {
    enum Transport: Sendable {
        case smtp(SMTPClient)
        case log
    }

    static let maximumAttempts = 10
    /// How long a taken message is left to this sender: more than the SMTP client's whole
    /// conversation may take.
    static let lease: Duration = .seconds(300)

    let outbox: MailOutbox
    let transport: Transport
    let doorbell: Doorbell
    var lookEvery: Duration = .seconds(5)
    let logger: Logger

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                await sendDue()
                await doorbell.wait(upTo: lookEvery)
            }
        }
    }

    /// Sends every message due now, a batch at a time; returns how many were sent.
    @discardableResult
    func sendDue() async -> Int {
        var sent = 0
        while !Task.isCancelled {
            let now = Date.nowMilliseconds
            let batch: [MailOutbox.Due]
            do {
                batch = try await outbox.take(
                    dueBy: now, leaseUntil: now + Int64(Self.lease.wholeMilliseconds), limit: 20)
            } catch {
                logger.warning("the mail outbox could not be read; trying again soon", metadata: ["error": "\(error)"])
                return sent
            }
            if batch.isEmpty { return sent }
            for due in batch where !Task.isCancelled {
                if await send(due) { sent += 1 }
            }
        }
        return sent
    }

    /// Hands `due` over and records what became of it; whether it was sent.
    private func send(_ due: MailOutbox.Due) async -> Bool {
        guard let mail = due.mail else {
            await record(due, kind: "unknown", outcome: "dead") {
                try await outbox.markDead(due, error: "its stored body could not be read")
            }
            return false
        }
        let kind = mail.kind.rawValue
        do {
            switch transport {
            case .smtp(let client):
                guard
                    let to = MailAddress(name: mail.name, address: mail.to) ?? MailAddress(name: nil, address: mail.to)
                else {
                    throw SMTPError.unusable("the recipient \(mail.to) is not an address mail can be sent to")
                }
                try await client.send(MailMessage(to: to, subject: mail.subject, text: mail.text, html: mail.html))
            case .log:
                logger.notice(
                    "mail not sent (no ORDERLY_SMTP_URL): follow its link here",
                    metadata: ["mail.kind": "\(kind)", "mail.to": "\(mail.to)", "mail.link": "\(mail.link)"])
            }
            await record(due, kind: kind, outcome: "sent") { try await outbox.markSent(due) }
            return true
        } catch {
            let smtpError = error as? SMTPError
            let permanent = smtpError?.isPermanent ?? false
            let message = smtpError.map(\.description) ?? "\(error)"
            if permanent || due.attempts + 1 >= Self.maximumAttempts {
                logger.error(
                    "mail given up",
                    metadata: ["mail.kind": "\(kind)", "mail.attempts": "\(due.attempts + 1)", "error": "\(message)"])
                await record(due, kind: kind, outcome: "dead") { try await outbox.markDead(due, error: message) }
            } else {
                let next = Date.nowMilliseconds + Int64(Self.backoff(after: due.attempts + 1).wholeMilliseconds)
                logger.warning(
                    "mail not sent; trying again later",
                    metadata: ["mail.kind": "\(kind)", "mail.attempts": "\(due.attempts + 1)", "error": "\(message)"])
                await record(due, kind: kind, outcome: "failed") {
                    try await outbox.retry(due, at: next, error: message)
                }
            }
            return false
        }
    }

    /// Counts the attempt and stores its outcome; a failure to store it leaves the message to
    /// fall due again when its lease ends (a sent one may then go twice, never not at all).
    private func record(_ due: MailOutbox.Due, kind: String, outcome: String, _ store: () async throws -> Void) async {
        Counter(label: "orderly_mail_sends_total", dimensions: [("kind", kind), ("outcome", outcome)]).increment()
        do {
            try await store()
        } catch {
            logger.warning(
                "a mail's outcome could not be stored; it falls due again when its lease ends",
                metadata: ["mail.outcome": "\(outcome)", "error": "\(error)"])
        }
    }

    /// How long after `attempts` failed attempts the next one comes.
    static func backoff(after attempts: Int) -> Duration {
        let doubled = Duration.seconds(30) * (1 << min(max(attempts - 1, 0), 20))
        return min(doubled, .seconds(3600)) * Double.random(in: 0.5...1.5)
    }

    /// Brings the mail gauges up to date (run before each scrape of `/metrics`).
    static func collectFigures(of outbox: MailOutbox, logger: Logger) async {
        do {
            let figures = try await outbox.figures()
            Gauge(label: "orderly_mail_queued").record(figures.queued)
            Gauge(label: "orderly_mail_dead_letters").record(figures.dead)
            Gauge(label: "orderly_mail_oldest_queued_age_seconds").record(
                figures.oldestQueuedAt.map { max(0, Double(Date.nowMilliseconds - $0) / 1000) } ?? 0)
        } catch {
            logger.debug("the mail outbox's figures could not be read for /metrics", metadata: ["error": "\(error)"])
        }
    }
}
