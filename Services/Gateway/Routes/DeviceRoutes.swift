import Contracts
import Domain
import Hummingbird
import Wire

/// `/v1/devices`: the caller's phones and tablets that notifications are pushed to, forwarded
/// to the notifications service.
struct DeviceRoutes: Sendable {
    let notifications: any WireCaller

    func add(to v1: RouterGroup<GatewayContext>) {
        v1.post("devices") { request, context in
            let options = try context.callOptions(request)
            let draft = try await JSONBody.decode(DeviceDraft.self, from: request, context: context)
            let device = try await notifications.call(DevicesAPI.register, draft, options: options)
            return try JSONBody.response(device, status: .created)
        }
        v1.delete("devices/:id") { request, context in
            let options = try context.callOptions(request)
            let id = try request.pathID("id", context, as: DeviceID.self)
            _ = try await notifications.call(DevicesAPI.remove, ResourceRef(id: id), options: options)
            return Response(status: .noContent)
        }
    }
}
