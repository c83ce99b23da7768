import Hummingbird
import NIOCore

/// `/openapi.yaml`: the gateway's OpenAPI document.
struct DocumentRoutes: Sendable {
    let document: ByteBuffer

    func add(to router: Router<GatewayContext>) {
        router.get("/openapi.yaml") { _, _ in
            Response(status: .ok, headers: [.contentType: "application/yaml"], body: ResponseBody(byteBuffer: document))
        }
    }
}
