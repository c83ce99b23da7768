import Catalog

// orderly-catalog: the catalog service, or `bench-store-search` to time the search of stores.
await CatalogService.main()
