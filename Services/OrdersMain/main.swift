import Orders

// orderly-orders: the orders service, or `bench-order-lists` to time its lists.
await OrdersService.main()
