import Orders
import Runtime

// orderly-orders: reads its configuration and runs the orders service until SIGTERM.
await ServiceMain.run(OrdersService.self)
