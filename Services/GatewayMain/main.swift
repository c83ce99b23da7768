import Gateway
import Runtime

// orderly-gateway: reads its configuration and serves the public HTTP API until SIGTERM.
await ServiceMain.run(
    service: GatewayService.name, wirePort: 0, adminPort: GatewayService.adminPort,
    upstreams: GatewayService.upstreams
) { settings, source, logger in
    let gateway = try GatewaySettings.read(service: settings, from: source)
    return try await GatewayService.services(settings: gateway, logger: logger) { url in
        logger.notice("gateway listening", metadata: ["http.url": "\(url)"])
    }
}
