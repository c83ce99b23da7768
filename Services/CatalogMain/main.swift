import Catalog
import Runtime

// orderly-catalog: reads its configuration and runs the catalog service until SIGTERM.
await ServiceMain.run(CatalogService.self)
