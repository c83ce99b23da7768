import Domain
import Runtime

/// Who a session's tokens were issued to, as its owner is shown it among their sessions: the
/// app's `User-Agent` (control and format characters dropped, at most 200 characters) and the
/// network of its address (`/24` of IPv4, `/48` of IPv6), never the address itself.
struct SessionClient: Sendable, Hashable {
    var device: String?
    var network: String?

    init(device: String?, address: IPAddress?) {
        let shown = device.map { header in
            String(
                String.UnicodeScalarView(
                    header.unicodeScalars.filter {
                        $0.properties.generalCategory != .control && $0.properties.generalCategory != .format
                    }
                    .prefix(200)))
        }
        self.device = shown?.isEmpty == false ? shown : nil
        self.network = address?.network
    }
}
