import ArgumentParser
import Runtime

extension OrdersService {
    /// `orderly-orders`: reads its configuration and serves until SIGTERM; or, given
    /// `bench-order-lists`, times order lists on a large SQLite database (`BenchOrderLists`).
    public static func main() async {
        let arguments = CommandLine.arguments.dropFirst()
        if arguments.first == BenchOrderLists.configuration.commandName {
            await BenchOrderLists.main(Array(arguments.dropFirst()))
            return
        }
        await ServiceMain.run(OrdersService.self)
    }
}
