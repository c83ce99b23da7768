import HummingbirdBcrypt
import NIOPosix

/// bcrypt, run on NIO's blocking thread pool: a hash takes tens to hundreds of milliseconds
/// of CPU, which must not hold up an event loop.
struct PasswordHasher: Sendable {
    let cost: Int
    /// A hash to check against when the account does not exist, so that a login for an
    /// unknown address takes as long as one with a wrong password.
    let decoy: String

    init(cost: Int) {
        self.cost = cost
        self.decoy = Bcrypt.hash("no account has this password", cost: UInt8(cost))
    }

    func hash(_ password: String) async throws -> String {
        let cost = UInt8(cost)
        return try await NIOThreadPool.singleton.runIfActive { Bcrypt.hash(password, cost: cost) }
    }

    func verify(_ password: String, against hash: String) async throws -> Bool {
        try await NIOThreadPool.singleton.runIfActive { Bcrypt.verify(password, hash: hash) }
    }
}
