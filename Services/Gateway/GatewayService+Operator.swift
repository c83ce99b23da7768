import Domain
import Foundation
public import Logging
import Redis
public import Runtime
import Storage

extension GatewayService {
    /// `orderly admin reset-password`: with the gateway's own settings (its database, Redis and
    /// bcrypt cost, from the same environment the gateway runs with), sets the admin `email`'s
    /// password, ends their sessions and lifts their sign-in lock. Returns the admin's id.
    public static func resetAdminPassword(
        email: String, password: String, configuration source: ConfigurationSource, logger: Logger
    ) async throws -> String {
        let service = try ServiceSettings.read(
            service: name, defaultWirePort: 0, defaultAdminPort: adminPort, upstreams: upstreams, from: source)
        let settings = try GatewaySettings.read(service: service, from: source)
        let database = try await Database.open(service.database, logger: logger)
        let redis = RedisClient(configuration: service.redis)
        do {
            let user = try await UserBook(database: database).resetAdminPassword(
                email: email, password: password, redis: redis, passwords: PasswordHasher(cost: settings.bcryptCost),
                logger: logger)
            await database.close()
            await redis.shutdown()
            return user.id.description
        } catch {
            await database.close()
            await redis.shutdown()
            throw error
        }
    }
}
