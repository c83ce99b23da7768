import Crypto
import Foundation
import HummingbirdBcrypt
import NIOPosix
import Synchronization

/// bcrypt, run on NIO's blocking thread pool: a hash takes tens to hundreds of milliseconds
/// of CPU, which must not hold up an event loop.
struct PasswordHasher: Sendable {
    let cost: Int
    /// A hash to check against when the account does not exist, so that a login for an
    /// unknown address takes as long as one with a wrong password.
    let decoy: String
    /// How many hashes and checks ran: the CPU a caller can make the gateway spend.
    private let runs = Runs()

    /// Shared by every copy of the hasher.
    private final class Runs: Sendable {
        let count = Atomic<Int>(0)
    }

    init(cost: Int) {
        self.cost = cost
        self.decoy = Bcrypt.hash("no account has this password", cost: UInt8(cost))
    }

    /// How many hashes and checks this hasher has run.
    var runCount: Int { runs.count.load(ordering: .relaxed) }

    func hash(_ password: String) async throws -> String {
        let cost = UInt8(cost)
        let input = Self.bcryptInput(password)
        runs.count.add(1, ordering: .relaxed)
        return try await NIOThreadPool.singleton.runIfActive { Bcrypt.hash(input, cost: cost) }
    }

    func verify(_ password: String, against hash: String) async throws -> Bool {
        let input = Self.bcryptInput(password)
        runs.count.add(1, ordering: .relaxed)
        return try await NIOThreadPool.singleton.runIfActive { Bcrypt.verify(input, hash: hash) }
    }

    /// What bcrypt hashes: the password itself, or, when its UTF-8 is longer than the 72 bytes
    /// bcrypt reads, its SHA-256 (base64, 51 bytes with its prefix), so that a password of up
    /// to 72 characters in any script counts in full.
    static func bcryptInput(_ password: String) -> String {
        guard password.utf8.count > 72 else { return password }
        return "sha256:" + Data(SHA256.hash(data: Data(password.utf8))).base64EncodedString()
    }
}
