import Redis
import ServiceLifecycle

/// Hands each message of a Redis pub/sub channel to `handle`, until shutdown or cancellation.
struct ChannelListener: Service {
    let redis: RedisConfiguration
    let channel: String
    let handle: @Sendable (RedisMessage) async -> Void

    func run() async throws {
        let subscriber = RedisSubscriber(configuration: redis, channels: [channel])
        await withTaskCancellationHandler {
            await withGracefulShutdownHandler {
                for await message in subscriber.messages { await handle(message) }
            } onGracefulShutdown: {
                subscriber.stop()
            }
        } onCancel: {
            subscriber.stop()
        }
    }
}
