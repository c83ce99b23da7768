import Foundation
import HTTPTypes
import OpenAPIRuntime
import OpenAPIURLSession

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One store's day through the client swift-openapi-generator made from the gateway's document, as
/// a Swift app would use it: the platform's admin opens a store and gives it a staff member; the
/// staff member signs in, creates a pickup order and takes it to collected by pressing, each time,
/// the first of the order's `allowed_actions` that is not a cancel. Every call goes through the
/// generated `Client`; an answer the document does not describe fails the flow.
///
/// Reads `ORDERLY_URL` (the gateway) and `ORDERLY_ADMIN_EMAIL` / `ORDERLY_ADMIN_PASSWORD`; prints
/// one line per step and exits 1 on the first that goes wrong.
@main
struct ClientFlow {
    static func main() async {
        do {
            try await run()
            print("client-flow: passed")
        } catch {
            print("client-flow: FAILED: \(error)")
            exit(1)
        }
    }

    static func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        guard let base = environment["ORDERLY_URL"].flatMap(URL.init(string:)),
            let adminEmail = environment["ORDERLY_ADMIN_EMAIL"],
            let adminPassword = environment["ORDERLY_ADMIN_PASSWORD"]
        else { throw FlowError("set ORDERLY_URL, ORDERLY_ADMIN_EMAIL and ORDERLY_ADMIN_PASSWORD") }

        let anonymous = client(base, token: nil)
        let admin = client(base, token: try await signIn(anonymous, adminEmail, adminPassword))
        print("signed in as the platform's admin")

        let store = try await admin.createStore(
            headers: .init(idempotencyKey: UUID().uuidString),
            body: .json(.init(name: "Generated Client Café"))
        ).created.body.json
        print("store \(store.id): \(store.name), dispatch \(store.dispatch?.rawValue ?? "-")")

        let email = "barista-\(UUID().uuidString.prefix(8).lowercased())@client.test"
        let password = "Client-Flow-Pass-1"
        let staff = try await admin.createUser(
            headers: .init(idempotencyKey: UUID().uuidString),
            body: .json(.init(email: email, name: "Noa", role: .staff, storeId: store.id, password: password))
        ).created.body.json
        print("staff member \(staff.id) of store \(staff.storeId ?? "none")")

        let barista = client(base, token: try await signIn(anonymous, email, password))
        let draft = Components.Schemas.OrderDraft(fulfillment: .pickup, customerName: "Dana", notes: "No onions")
        let created = try await barista.createOrder(
            headers: .init(idempotencyKey: UUID().uuidString),
            body: .json(.init(value2: .init(value1: draft)))
        ).created
        var (order, etag) = (try created.body.json, created.headers.eTag)
        print("order #\(order.value1.number) \(order.value1.status.rawValue), can do \(names(order))")

        var pressed: [Components.Schemas.OrderAction] = []
        while let action = order.value2.allowedActions.first(where: { $0 != .cancel }) {
            guard pressed.count < 10 else { throw FlowError("the order never stops offering actions: \(pressed)") }
            pressed.append(action)
            let acted = try await barista.performOrderAction(
                path: .init(id: order.value1.id, action: action),
                headers: .init(ifMatch: etag)
            ).ok.body.json
            let read = try await barista.getOrder(path: .init(id: acted.value1.id)).ok
            (order, etag) = (try read.body.json, read.headers.eTag)
            guard order.value1.version == acted.value1.version else {
                throw FlowError(
                    "read version \(order.value1.version) after \(action.rawValue) answered \(acted.value1.version)")
            }
            print("\(action.rawValue) → \(order.value1.status.rawValue), can do \(names(order))")
        }
        guard order.value1.status == .collected, pressed == [.accept, .startPreparing, .markReady, .markCollected]
        else { throw FlowError("ended \(order.value1.status.rawValue) after \(pressed.map(\.rawValue))") }
    }

    /// A generated client for the gateway at `base`, sending `token` as the bearer when given.
    static func client(_ base: URL, token: String?) -> Client {
        Client(
            serverURL: base,
            configuration: .init(dateTranscoder: FlexibleDates()),
            transport: URLSessionTransport(),
            middlewares: token.map { [Bearer(token: $0)] } ?? []
        )
    }

    /// The access token of a password sign-in.
    static func signIn(_ client: Client, _ email: String, _ password: String) async throws -> String {
        try await client.login(body: .json(.init(email: email, password: password))).ok.body.json.accessToken
    }

    static func names(_ order: Components.Schemas.Order) -> String {
        order.value2.allowedActions.map(\.rawValue).joined(separator: ", ")
    }
}

/// Sends `Authorization: Bearer <token>` with every request.
struct Bearer: ClientMiddleware {
    let token: String

    func intercept(
        _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        var request = request
        request.headerFields[.authorization] = "Bearer \(token)"
        return try await next(request, body, baseURL)
    }
}

/// RFC 3339 times with or without fractional seconds, as the gateway writes them.
struct FlexibleDates: DateTranscoder {
    func encode(_ date: Date) throws -> String { try ISO8601DateTranscoder.iso8601WithFractionalSeconds.encode(date) }

    func decode(_ text: String) throws -> Date {
        if let date = try? ISO8601DateTranscoder.iso8601WithFractionalSeconds.decode(text) { return date }
        return try ISO8601DateTranscoder.iso8601.decode(text)
    }
}

struct FlowError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
