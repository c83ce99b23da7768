import Catalog
import Gateway
import Notifications
import Orders
import Payments
import Runtime

/// The entry point: the operator's command line, or, called by a service's executable name (a
/// link to this one), that service. The container image ships this one executable and links
/// named for each service (deploy/Containerfile), so that the services share their code on disk
/// instead of carrying a copy each; elsewhere each service is also its own executable.
@main
enum OrderlyMain {
    static func main() async {
        switch CommandLine.arguments.first?.split(separator: "/").last {
        case "orderly-gateway": await GatewayService.main()
        case "orderly-orders": await OrdersService.main()
        case "orderly-catalog": await ServiceMain.run(CatalogService.self)
        case "orderly-payments": await ServiceMain.run(PaymentsService.self)
        case "orderly-notifications": await ServiceMain.run(NotificationsService.self)
        default: await Orderly.main(nil)
        }
    }
}
