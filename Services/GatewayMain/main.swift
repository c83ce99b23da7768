import Gateway

// orderly-gateway: the public HTTP API, or `admin …` for the platform's admins.
await GatewayService.main()
