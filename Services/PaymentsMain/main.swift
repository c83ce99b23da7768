import Payments
import Runtime

// orderly-payments: reads its configuration and runs the payments service until SIGTERM.
await ServiceMain.run(PaymentsService.self)
