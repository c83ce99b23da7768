public import Foundation

/// A certificate authority and certificates it signed, made with the `openssl` command in a new
/// folder: what the Wire TLS tests need, without committing a key.
public struct TestCertificates: Sendable {
    public let folder: URL

    /// The PEM files of `name` (`<name>.pem`, `<name>.key`).
    public func certificate(_ name: String) -> String { folder.appendingPathComponent("\(name).pem").path }
    public func key(_ name: String) -> String { folder.appendingPathComponent("\(name).key").path }

    /// Makes authority `authority` and, signed by it, a certificate for each of `names` that is
    /// valid for `hosts` (`localhost` and `127.0.0.1` by default), for serving and for calling. Call again with
    /// another authority name to make a second, unrelated one in the same folder.
    public static func make(
        authority: String = "ca", names: [String], hosts: [String] = ["DNS:localhost", "IP:127.0.0.1"],
        in folder: URL? = nil
    ) throws -> TestCertificates {
        let folder =
            folder
            ?? FileManager.default.temporaryDirectory.appendingPathComponent("orderly-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let made = TestCertificates(folder: folder)
        let ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        if !FileManager.default.fileExists(atPath: made.certificate(authority)) {
            try openssl(
                ["req", "-x509"] + ec + [
                    "-keyout", made.key(authority), "-out", made.certificate(authority), "-days", "2",
                    "-subj", "/CN=orderly test authority \(authority)",
                    "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign",
                ])
        }
        let extensions = folder.appendingPathComponent("leaf.ext")
        try Data(
            """
            subjectAltName=\(hosts.joined(separator: ","))
            basicConstraints=CA:FALSE
            keyUsage=critical,digitalSignature
            extendedKeyUsage=serverAuth,clientAuth

            """.utf8
        ).write(to: extensions)
        for name in names {
            let request = folder.appendingPathComponent("\(name).csr").path
            try openssl(["req"] + ec + ["-keyout", made.key(name), "-out", request, "-subj", "/CN=\(name)"])
            try openssl([
                "x509", "-req", "-in", request, "-CA", made.certificate(authority), "-CAkey", made.key(authority),
                "-CAcreateserial", "-out", made.certificate(name), "-days", "2", "-extfile", extensions.path,
            ])
        }
        return made
    }

    /// An RSA private key of 2,048 bits, PEM (PKCS #8), made in the folder as `<name>.key`: what
    /// a service account's key file holds.
    public func makeRSAKey(_ name: String) throws -> String {
        try Self.openssl(["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", key(name)])
        return try String(contentsOfFile: key(name), encoding: .utf8)
    }

    public func remove() {
        try? FileManager.default.removeItem(at: folder)
    }

    private static func openssl(_ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["openssl"] + arguments
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let message = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw Failure(
                description: "openssl \(arguments.prefix(2).joined(separator: " ")) failed: "
                    + String(decoding: message, as: UTF8.self))
        }
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }
}
