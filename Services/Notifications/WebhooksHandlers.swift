import Contracts
import Crypto
import Domain
import Foundation
import Runtime
import Storage
import Wire

/// The webhooks' Wire methods: a store's endpoints, for its owners, managers and admins.
struct WebhooksHandlers: Sendable {
    let webhooks: WebhooksRepository
    let destinations: WebhookDestinations
    let doorbell: Doorbell

    /// The most endpoints one store may have.
    static let maximumPerStore = 16

    func register(in router: inout WireRouter) {
        router.register(WebhooksAPI.create) { draft, context in try await create(draft, by: context.requirePrincipal())
        }
        router.register(WebhooksAPI.list) { request, context in
            try await list(request, by: context.requirePrincipal())
        }
        router.register(WebhooksAPI.get) { ref, context in
            try await endpoint(ref.id, by: context.requirePrincipal()).webhook
        }
        router.register(WebhooksAPI.update) { patch, context in try await update(patch, by: context.requirePrincipal())
        }
        router.register(WebhooksAPI.delete) { ref, context in try await delete(ref.id, by: context.requirePrincipal()) }
        router.register(WebhooksAPI.rotateSecret) { ref, context in
            try await rotate(ref.id, by: context.requirePrincipal())
        }
        router.register(WebhooksAPI.deliveries) { request, context in
            _ = try await endpoint(request.webhookID, by: context.requirePrincipal())
            let limit = try KeysetCursor.limit(request.page.limit)
            return try await webhooks.deliveries(
                of: request.webhookID, after: try request.page.cursor.map { try KeysetCursor(token: $0) }, limit: limit)
        }
        router.register(WebhooksAPI.redeliver) { ref, context in
            try await redeliver(ref, by: context.requirePrincipal())
        }
    }

    func create(_ draft: WebhookDraft, by principal: Principal) async throws -> Webhook {
        var problems = FieldProblems()
        let url = check(url: draft.url, required: true, into: &problems)
        let events = check(events: draft.events, required: true, into: &problems)
        let store = problems.required(draft.storeID, "store_id")
        guard let url, let events, let store, problems.isEmpty else { throw problems.failure }
        guard AccessPolicy(principal).canManageWebhooks(of: store) else {
            throw OrderlyError(.notFound, "no store \(store)")
        }
        let now = Date.currentMillisecond
        let secret = Self.newSecret()
        var webhook = Webhook(
            id: WebhookID(), storeID: store, url: url, events: events, active: draft.active ?? true,
            disabledReason: nil, secret: nil, version: 1, createdAt: now, updatedAt: now)
        let stored = webhook
        let webhooks = self.webhooks
        try await webhooks.database.transaction { transaction in
            guard try await webhooks.count(of: store, in: transaction.sql) < Self.maximumPerStore else {
                throw OrderlyError(
                    .tooManyWebhooks, "a store has at most \(Self.maximumPerStore) webhooks; delete one first")
            }
            try await webhooks.insert(stored, secret: secret, in: transaction)
        }
        webhook.secret = secret
        return webhook
    }

    func list(_ request: WebhookListRequest, by principal: Principal) async throws -> Page<Webhook> {
        guard AccessPolicy(principal).canManageWebhooks(of: request.storeID) else {
            throw OrderlyError(.notFound, "no store \(request.storeID)")
        }
        let limit = try KeysetCursor.limit(request.page.limit)
        return try await webhooks.list(
            of: request.storeID, after: try request.page.cursor.map { try KeysetCursor(token: $0) }, limit: limit)
    }

    /// The endpoint `id` when the caller manages its store; 404 otherwise.
    private func endpoint(_ id: WebhookID, by principal: Principal) async throws -> WebhooksRepository.Endpoint {
        let found = try await webhooks.database.read { try await webhooks.find(id, in: $0) }
        guard let found, AccessPolicy(principal).canManageWebhooks(of: found.webhook.storeID) else {
            throw OrderlyError(.notFound, "no webhook \(id)")
        }
        return found
    }

    func update(_ patch: Patch<WebhookID, WebhookChanges>, by principal: Principal) async throws -> Webhook {
        var problems = FieldProblems()
        let url = check(url: patch.changes.url, required: false, into: &problems)
        let events = check(events: patch.changes.events, required: false, into: &problems)
        try problems.check()
        let policy = AccessPolicy(principal)
        let webhooks = self.webhooks
        return try await webhooks.database.transaction { transaction in
            guard let found = try await webhooks.find(patch.id, in: transaction.sql),
                policy.canManageWebhooks(of: found.webhook.storeID)
            else { throw OrderlyError(.notFound, "no webhook \(patch.id)") }
            var webhook = found.webhook
            if let expected = patch.expectedVersion, expected != webhook.version {
                throw OrderlyError.versionConflict(current: webhook)
            }
            if let url { webhook.url = url }
            if let events { webhook.events = events }
            if let active = patch.changes.active {
                webhook.active = active
                if active { webhook.disabledReason = nil }
            }
            webhook.version += 1
            webhook.updatedAt = Date.currentMillisecond
            try await webhooks.save(webhook, in: transaction)
            return webhook
        }
    }

    func delete(_ id: WebhookID, by principal: Principal) async throws -> Webhook {
        let found = try await endpoint(id, by: principal)
        try await webhooks.database.transaction { try await webhooks.delete(id, in: $0) }
        return found.webhook
    }

    func rotate(_ id: WebhookID, by principal: Principal) async throws -> Webhook {
        var webhook = try await endpoint(id, by: principal).webhook
        let secret = Self.newSecret()
        webhook.version += 1
        webhook.updatedAt = Date.currentMillisecond
        let stored = webhook
        try await webhooks.database.transaction { try await webhooks.save(stored, secret: secret, in: $0) }
        webhook.secret = secret
        return webhook
    }

    func redeliver(_ ref: WebhookDeliveryRef, by principal: Principal) async throws -> WebhookDelivery {
        _ = try await endpoint(ref.webhookID, by: principal)
        let webhooks = self.webhooks
        let now = Date.currentMillisecond
        let delivery = try await webhooks.database.transaction { transaction in
            guard var delivery = try await webhooks.delivery(ref.deliveryID, in: transaction.sql),
                delivery.webhookID == ref.webhookID
            else { throw OrderlyError(.notFound, "no delivery \(ref.deliveryID)") }
            delivery.status = .pending
            delivery.nextAttemptAt = now
            try await webhooks.redeliver(delivery, at: now, in: transaction)
            return delivery
        }
        doorbell.ring()
        return delivery
    }

    /// An endpoint's URL: `https` (or `http`, where the operator allows it), a host, no
    /// credentials, at most 2,048 characters; a literal address must be one deliveries may go to.
    private func check(url text: String?, required: Bool, into problems: inout FieldProblems) -> String? {
        guard let text = text?.trimmingWhitespace(), !text.isEmpty else {
            if required { problems.add("url", "is required") }
            return nil
        }
        guard text.utf8.count <= 2048, let components = URLComponents(string: text),
            let scheme = components.scheme?.lowercased(), ["http", "https"].contains(scheme),
            var host = components.host, !host.isEmpty, components.user == nil, components.password == nil,
            components.fragment == nil
        else {
            let schemes = destinations.permits(scheme: "http") ? "an http or https" : "an https"
            problems.add("url", "must be \(schemes) URL with a host, without credentials or a fragment")
            return nil
        }
        guard destinations.permits(scheme: scheme) else {
            problems.add("url", "must be https: a plain http endpoint would let anyone on the way read the events")
            return nil
        }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        if let address = IPAddress(host), !destinations.permits(address) {
            problems.add("url", "must not point at a private, loopback, link-local or metadata address")
            return nil
        }
        return text
    }

    private func check(events: [String]?, required: Bool, into problems: inout FieldProblems) -> [String]? {
        guard let events else {
            if required { problems.add("events", "is required") }
            return nil
        }
        let unknown = events.filter { !WebhooksAPI.eventTypes.contains($0) }
        guard !events.isEmpty, unknown.isEmpty, Set(events).count == events.count else {
            problems.add(
                "events",
                "must name each at most once, at least one, of \(WebhooksAPI.eventTypes.joined(separator: ", "))")
            return nil
        }
        return events
    }

    /// A new signing secret: `whsec_` and 32 random bytes in hex.
    static func newSecret() -> String {
        "whsec_" + Hex.lowercased(Array(SymmetricKey(size: .bits256).withUnsafeBytes { Array($0) }))
    }
}
