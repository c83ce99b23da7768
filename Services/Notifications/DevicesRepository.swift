import Contracts
import Domain
import Foundation
import SQLKit
import Storage

/// The SQL of the devices notifications are pushed to: one row per push token, with the user
/// it belongs to now.
struct DevicesRepository: Sendable {
    let database: Database

    /// The most devices one user has; registering another removes their least recently
    /// registered.
    static let maximumPerUser = 10

    /// Stores `device`, or, when its token is stored already, gives that row to `device`'s user
    /// with `device`'s settings, keeping its id and creation time; returns what is stored. Two
    /// registrations of a new token at once store it once (the second waits on the first's row).
    /// The user keeps their `maximumPerUser` most recently registered devices.
    func register(_ device: Device) async throws -> Device {
        try await database.transaction { transaction in
            try await transaction.sql.raw(
                """
                INSERT INTO devices (id, user_id, token, updated_at, doc)
                VALUES (\(bind: device.id.description), \(bind: device.userID.description), \(bind: device.token),
                    \(bind: device.updatedAt.millisecondsSince1970), \(bind: try StoredDocument.text(device)))
                ON CONFLICT (token) DO NOTHING
                """
            ).run()
            guard
                let row = try await transaction.sql.raw("SELECT doc FROM devices WHERE token = \(bind: device.token)")
                    .first()
            else { throw StorageError.unexpected("a device's row is gone within its transaction") }
            let existing = try StoredDocument.decode(Device.self, from: row)
            guard existing.id != device.id else {
                try await Self.keepNewest(of: device.userID, in: transaction)
                return device
            }
            var stored = device
            stored.id = existing.id
            stored.createdAt = existing.createdAt
            try await transaction.sql.raw(
                """
                UPDATE devices SET user_id = \(bind: stored.userID.description),
                    updated_at = \(bind: stored.updatedAt.millisecondsSince1970), doc = \(bind: try StoredDocument.text(stored))
                WHERE id = \(bind: stored.id.description)
                """
            ).run()
            try await Self.keepNewest(of: stored.userID, in: transaction)
            return stored
        }
    }

    /// Removes `user`'s devices beyond the `maximumPerUser` most recently registered.
    private static func keepNewest(of user: UserID, in transaction: Transaction) async throws {
        try await transaction.sql.raw(
            """
            DELETE FROM devices WHERE user_id = \(bind: user.description) AND id NOT IN (
                SELECT id FROM devices WHERE user_id = \(bind: user.description)
                ORDER BY updated_at DESC, id DESC LIMIT \(bind: maximumPerUser))
            """
        ).run()
    }

    func find(_ id: DeviceID) async throws -> Device? {
        try await database.read { sql in
            try await sql.raw("SELECT doc FROM devices WHERE id = \(bind: id.description)").first()
        }.map { try StoredDocument.decode(Device.self, from: $0) }
    }

    /// Removes device `id` if it still belongs to `user`; returns whether it did.
    func remove(_ id: DeviceID, of user: UserID) async throws -> Bool {
        try await database.transaction { transaction in
            try await !transaction.sql.raw(
                """
                DELETE FROM devices WHERE id = \(bind: id.description) AND user_id = \(bind: user.description)
                RETURNING id
                """
            ).all().isEmpty
        }
    }

    /// The devices of `users`.
    func devices(of users: Set<UserID>) async throws -> [Device] {
        guard !users.isEmpty else { return [] }
        return try await database.read { sql in
            try await sql.raw(
                "SELECT doc FROM devices WHERE user_id IN (\(binds: users.map(\.description)))"
            ).all()
        }.map { try StoredDocument.decode(Device.self, from: $0) }
    }

    /// Removes the device of `token` unless it was registered again after `validUntil`, the
    /// last time the platform says the token was good.
    func removeUnregistered(token: String, validUntil: Date) async throws {
        try await database.transaction { transaction in
            try await transaction.sql.raw(
                """
                DELETE FROM devices WHERE token = \(bind: token)
                AND updated_at <= \(bind: validUntil.millisecondsSince1970)
                """
            ).run()
        }
    }
}
