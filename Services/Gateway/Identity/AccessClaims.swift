import Crypto
import Domain
import Foundation
import JWTKit
import Synchronization

/// What an access token says about its bearer; signed HS256 by the gateway.
struct AccessClaims: JWTPayload {
    var sub: SubjectClaim
    var exp: ExpirationClaim
    var iat: IssuedAtClaim
    var iss: IssuerClaim
    var role: String
    var storeID: String?
    /// The user's token version when it was issued: a password change, deactivation or role
    /// change moves the version on, and every token issued before stops working.
    var tokenVersion: Int64?
    /// The session (the refresh-token family) it was issued in, which can be ended alone; none in
    /// tokens issued before sessions were named.
    var session: String?
    /// The user's locale when it was issued: the language of their errors when their request
    /// names none (`Accept-Language`).
    var locale: String?

    enum CodingKeys: String, CodingKey {
        case sub, exp, iat, iss, role
        case storeID = "store_id"
        case tokenVersion = "tv"
        case session = "sid"
        case locale = "loc"
    }

    static let issuer = "orderly"

    func verify(using algorithm: some JWTAlgorithm) async throws {
        try exp.verifyNotExpired()
        guard iss.value == Self.issuer else {
            throw JWTError.claimVerificationFailure(failedClaim: iss, reason: "wrong issuer")
        }
    }

    /// The principal the claims name; nil when they do not name a valid one.
    var principal: Principal? {
        guard let userID = UserID(sub.value), let role = Role(rawValue: role) else { return nil }
        let store = storeID.flatMap(StoreID.init)
        guard role.isStoreRole == (store != nil) else { return nil }
        return Principal(userID: userID, role: role, storeID: store)
    }
}
