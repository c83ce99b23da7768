import ArgumentParser
import Orders
import Runtime

// orderly-orders: reads its configuration and runs the orders service until SIGTERM; or, given
// `bench-order-lists`, times order lists on a large SQLite file (`BenchOrderLists`).
if CommandLine.arguments.dropFirst().first == BenchOrderLists.configuration.commandName {
    await runCommand(BenchOrderLists.self, Array(CommandLine.arguments.dropFirst(2)))
} else {
    await ServiceMain.run(OrdersService.self)
}

/// Runs an asynchronous command with `arguments` (ArgumentParser's asynchronous `main`).
func runCommand<Command: AsyncParsableCommand>(_ command: Command.Type, _ arguments: [String]) async {
    await command.main(arguments)
}
