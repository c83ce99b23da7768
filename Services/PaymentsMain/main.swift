import Payments
import Runtime

// orderly-payments: reads its configuration and runs the payments service until SIGTERM.
await ServiceMain.run(
    service: PaymentsService.name, wirePort: PaymentsService.wirePort, adminPort: PaymentsService.adminPort,
    upstreams: PaymentsService.upstreams
) { settings, _, logger in
    try await PaymentsService.services(settings: settings, logger: logger)
}
