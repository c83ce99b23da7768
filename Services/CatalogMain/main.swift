import Catalog
import Runtime

// orderly-catalog: reads its configuration and runs the catalog service until SIGTERM.
await ServiceMain.run(
    service: CatalogService.name, wirePort: CatalogService.wirePort, adminPort: CatalogService.adminPort
) { settings, _, logger in
    try await CatalogService.services(settings: settings, logger: logger)
}
