import Orders
import Runtime

// orderly-orders: reads its configuration and runs the orders service until SIGTERM.
await ServiceMain.run(
    service: OrdersService.name, wirePort: OrdersService.wirePort, adminPort: OrdersService.adminPort,
    upstreams: OrdersService.upstreams
) { settings, _, logger in
    try await OrdersService.services(settings: settings, logger: logger)
}
