import ArgumentParser
import Runtime

extension GatewayService {
    /// `orderly-gateway`: reads its configuration and serves the public HTTP API until SIGTERM; or,
    /// given `admin`, does what an operator does for the platform's admins (`AdminCommands`).
    public static func main() async {
        let arguments = CommandLine.arguments.dropFirst()
        if arguments.first == AdminCommands.configuration.commandName {
            await AdminCommands.main(Array(arguments.dropFirst()))
            return
        }
        await ServiceMain.run(
            service: name, wirePort: 0, adminPort: adminPort, upstreams: upstreams, migrations: migrations
        ) {
            settings, source, logger in
            let gateway = try GatewaySettings.read(service: settings, from: source)
            return try await services(settings: gateway, logger: logger) { url in
                logger.notice("gateway listening", metadata: ["http.url": "\(url)"])
            }
        }
    }
}
