import ArgumentParser
import Gateway
import Runtime

// orderly-gateway: reads its configuration and serves the public HTTP API until SIGTERM; or, given
// `admin`, does what an operator does for the platform's admins (`AdminCommands`).
if CommandLine.arguments.dropFirst().first == AdminCommands.configuration.commandName {
    await runCommand(AdminCommands.self, Array(CommandLine.arguments.dropFirst(2)))
} else {
    await ServiceMain.run(
        service: GatewayService.name, wirePort: 0, adminPort: GatewayService.adminPort,
        upstreams: GatewayService.upstreams, migrations: GatewayService.migrations
    ) { settings, source, logger in
        let gateway = try GatewaySettings.read(service: settings, from: source)
        return try await GatewayService.services(settings: gateway, logger: logger) { url in
            logger.notice("gateway listening", metadata: ["http.url": "\(url)"])
        }
    }
}

/// Runs an asynchronous command with `arguments` (ArgumentParser's asynchronous `main`).
func runCommand<Command: AsyncParsableCommand>(_ command: Command.Type, _ arguments: [String]) async {
    await command.main(arguments)
}
