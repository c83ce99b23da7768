import ArgumentParser
import Domain
import Foundation
import Logging
import Runtime

/// `orderly-gateway admin`: what an operator does for the platform's admins, with the gateway's
/// environment (its database and Redis).
struct AdminCommands: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "admin",
        abstract: "For the platform's admins, run with the gateway's environment (its database and Redis).",
        subcommands: [ResetPassword.self])

    struct ResetPassword: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "reset-password",
            abstract: "Set an admin's password, end their sessions and lift their sign-in lock.",
            discussion: """
                The new password is read from standard input (its first line), never from the command \
                line, where other users of the machine and the shell's history would see it. On a \
                terminal it is asked for twice, without echo.
                """)

        @Argument(help: "The admin's e-mail.") var email: String

        func run() async throws {
            let password = try Self.readPassword()
            var logger = Logger(label: "orderly.admin")
            logger.logLevel = .warning
            do {
                let id = try await GatewayService.resetAdminPassword(
                    email: email, password: password,
                    configuration: try await ConfigurationSource.load(arguments: []), logger: logger)
                print("password set for \(email) (user \(id)); their sessions ended and sign-in lock lifted")
            } catch let error as OrderlyError {
                let details = (error.details ?? [:]).sorted { $0.key < $1.key }.map { field, reason in
                    if case .string(let text) = reason { return "\n  \(field): \(text)" }
                    return ""
                }
                FileHandle.standardError.write(
                    Data("orderly-gateway admin reset-password: \(error.message)\(details.joined())\n".utf8))
                throw ExitCode(1)
            }
        }

        /// The first line of standard input; on a terminal, asked for twice without echo.
        static func readPassword() throws -> String {
            guard isatty(STDIN_FILENO) == 1 else {
                guard let line = readLine(strippingNewline: true), !line.isEmpty else {
                    throw ValidationError("give the new password on standard input")
                }
                return line
            }
            let first = try silently("New password: ")
            guard try silently("Again: ") == first else { throw ValidationError("the two passwords differ") }
            return first
        }

        /// A line read from the terminal with echo off.
        static func silently(_ prompt: String) throws -> String {
            FileHandle.standardError.write(Data(prompt.utf8))
            var saved = termios()
            tcgetattr(STDIN_FILENO, &saved)
            var quiet = saved
            quiet.c_lflag &= ~tcflag_t(ECHO)
            tcsetattr(STDIN_FILENO, TCSANOW, &quiet)
            defer {
                tcsetattr(STDIN_FILENO, TCSANOW, &saved)
                FileHandle.standardError.write(Data("\n".utf8))
            }
            guard let line = readLine(strippingNewline: true), !line.isEmpty else {
                throw ValidationError("no password given")
            }
            return line
        }
    }
}
