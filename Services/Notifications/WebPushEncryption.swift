import Crypto
import Foundation

/// A push message's body as Web Push carries it (RFC 8291): encrypted for the browser's
/// subscription, so the push service in between reads nothing. The content coding is
/// `aes128gcm` (RFC 8188) in one record: a header of the salt, the record size and the
/// sender's one-time public key, then the AES-128-GCM ciphertext of the message and its
/// padding delimiter.
enum WebPushEncryption {
    /// The most plaintext one push carries: push services take at least 4,096 bytes of body, of
    /// which the header takes 86 and the tag and delimiter 17.
    static let maximumPlaintextBytes = 3993

    /// `plaintext` encrypted for the subscriber's P-256 public key (65 bytes, uncompressed) and
    /// authentication secret (16 bytes), from a fresh key pair and salt unless given (the RFC's
    /// example gives both).
    static func encrypt(
        _ plaintext: [UInt8], subscriberKey: P256.KeyAgreement.PublicKey, authSecret: [UInt8],
        salt: [UInt8] = randomBytes(16), sender: P256.KeyAgreement.PrivateKey = P256.KeyAgreement.PrivateKey()
    ) throws -> [UInt8] {
        let senderKey = sender.publicKey.x963Representation
        let (key, nonce) = try keys(
            secret: try sender.sharedSecretFromKeyAgreement(with: subscriberKey), authSecret: authSecret, salt: salt,
            subscriberKey: Array(subscriberKey.x963Representation), senderKey: Array(senderKey))
        // One record, the last: the message, then the delimiter 0x02 and no padding.
        let sealed = try AES.GCM.seal(plaintext + [2], using: key, nonce: nonce)
        let recordSize = UInt32(4096)
        var body = salt
        body += withUnsafeBytes(of: recordSize.bigEndian, Array.init)
        body.append(UInt8(senderKey.count))
        body += senderKey
        body += sealed.ciphertext
        body += sealed.tag
        return body
    }

    /// The content-encryption key and nonce of RFC 8291 §3.4 and RFC 8188 §2.2: the ECDH secret
    /// mixed with the authentication secret and both public keys, then with the salt.
    static func keys(
        secret: SharedSecret, authSecret: [UInt8], salt: [UInt8], subscriberKey: [UInt8], senderKey: [UInt8]
    ) throws -> (SymmetricKey, AES.GCM.Nonce) {
        let keyInfo = Array("WebPush: info".utf8) + [0] + subscriberKey + senderKey
        let material = secret.hkdfDerivedSymmetricKey(
            using: SHA256.self, salt: authSecret, sharedInfo: keyInfo, outputByteCount: 32)
        let pseudorandom = HKDF<SHA256>.extract(inputKeyMaterial: material, salt: salt)
        let key = HKDF<SHA256>.expand(
            pseudoRandomKey: pseudorandom, info: Array("Content-Encoding: aes128gcm".utf8) + [0], outputByteCount: 16)
        let nonce = HKDF<SHA256>.expand(
            pseudoRandomKey: pseudorandom, info: Array("Content-Encoding: nonce".utf8) + [0], outputByteCount: 12)
        return (key, try AES.GCM.Nonce(data: nonce.withUnsafeBytes { Array($0) }))
    }

    static func randomBytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }
}
