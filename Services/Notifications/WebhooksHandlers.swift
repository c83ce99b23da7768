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
                of: request.webhookID, after: try request.page.cursor.map { try KeysetCursor(token: $0) }, limit: limit,
                counting: request.page.counting)
        }
        router.register(WebhooksAPI.redeliver) { ref, context in
            try await redeliver(ref, by: context.requirePrincipal())
        }
        router.register(WebhooksAPI.test) { ref, context in try await test(ref.id, by: context.requirePrincipal()) }
    }

    func create(_ draft: WebhookDraft, by principal: Principal) async throws -> Webhook {
        let (store, url, events, active) = try draft.validated(
            allowingHTTP: destinations.permits(scheme: "http"), permits: permits(host:))
        guard AccessPolicy(principal).canManageWebhooks(of: store) else {
            throw OrderlyError(.notFound, "no store \(store)")
        }
        let now = Date.currentMillisecond
        let secret = Self.newSecret()
        var webhook = Webhook(
            id: WebhookID(), storeID: store, url: url, events: events, active: active,
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
            of: request.storeID, after: try request.page.cursor.map { try KeysetCursor(token: $0) }, limit: limit,
            counting: request.page.counting)
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
        let (url, events, active) = try patch.changes.validated(
            allowingHTTP: destinations.permits(scheme: "http"), permits: permits(host:))
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
            if let active {
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

    /// A delivery of a `webhook.test` event to endpoint `id` alone, due now: signed, retried and
    /// listed like any other, so its receiver's answer shows in the endpoint's deliveries.
    func test(_ id: WebhookID, by principal: Principal) async throws -> WebhookDelivery {
        let webhook = try await endpoint(id, by: principal).webhook
        let now = Date.currentMillisecond
        let event = WebhookEvent(
            id: UUID().lowercasedText, type: WebhooksAPI.testEventType, createdAt: now, storeID: webhook.storeID,
            data: .object(["webhook_id": .string(webhook.id.description)]))
        let deliveries = try await webhooks.database.transaction {
            try await webhooks.enqueue(event, to: [webhook.id], at: now, in: $0)
        }
        doorbell.ring()
        return deliveries[0]
    }

    /// Whether deliveries may go to an endpoint's host as written: a literal IP address must be
    /// one `destinations` permits; a name is checked when it is resolved, at delivery.
    private func permits(host: String) -> Bool {
        IPAddress(host).map(destinations.permits) ?? true
    }

    /// A new signing secret: `whsec_` and 32 random bytes in hex.
    static func newSecret() -> String {
        "whsec_" + Hex.lowercased(Array(SymmetricKey(size: .bits256).withUnsafeBytes { Array($0) }))
    }
}
