import Redis
import ServiceLifecycle

/// Hands each message of a Redis pub/sub channel (a sharded one, `SSUBSCRIBE`, when `sharded`)
/// to `handle`, until shutdown or cancellation.
struct ChannelListener: Service {
    let redis: RedisConfiguration
    let channel: String
    var sharded = false
    let handle: @Sendable (RedisMessage) async -> Void

    func run() async throws {
        let subscriber = RedisSubscriber(configuration: redis, channels: [channel], sharded: sharded)
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
