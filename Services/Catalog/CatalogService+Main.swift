import ArgumentParser
import Runtime

extension CatalogService {
    /// `orderly-catalog`: reads its configuration and serves until SIGTERM; or, given
    /// `bench-store-search`, times the search of stores (`BenchStoreSearch`).
    public static func main() async {
        let arguments = CommandLine.arguments.dropFirst()
        if arguments.first == BenchStoreSearch.configuration.commandName {
            await BenchStoreSearch.main(Array(arguments.dropFirst()))
            return
        }
        await ServiceMain.run(CatalogService.self)
    }
}
