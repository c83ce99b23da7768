import Contracts
import Domain
import Hummingbird
import Wire

/// `/v1/devices`: the caller's phones and tablets that notifications are pushed to, forwarded
/// to the notifications service.
struct DeviceRoutes: Sendable {
    let notifications: any WireCaller

    func add(to v1: RouterGroup<GatewayContext>) {
        v1.post("devices", use: signedIn(register))
            .delete("devices/:id", use: signedIn(remove))
    }

    @Sendable func register(_ request: SignedInRequest) async throws -> Response {
        let draft = try await request.decode(DeviceDraft.self)
        let device = try await notifications.call(DevicesAPI.register, draft, options: request.options)
        return try JSONBody.response(device, status: .created)
    }

    @Sendable func remove(_ request: SignedInRequest) async throws -> Response {
        let device = ResourceRef(id: try request.id(as: DeviceID.self))
        _ = try await notifications.call(DevicesAPI.remove, device, options: request.options)
        return Response(status: .noContent)
    }
}
