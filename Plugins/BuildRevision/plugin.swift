import Foundation
import PackagePlugin

/// Writes `BuildRevision.swift` into the target before each build: the commit the build is of
/// (`ORDERLY_REVISION` when set, as the image build passes it, else `git rev-parse`, `+dirty` with
/// uncommitted changes; `unknown` outside a checkout), rewritten only when it changed, so that an
/// unchanged revision recompiles nothing. `--version` and `orderly_build_info` report it.
@main
struct BuildRevision: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let folder = context.pluginWorkDirectoryURL.appending(path: "generated")
        let script = #"""
            revision=${ORDERLY_REVISION:-}
            if [ -z "$revision" ]; then
                revision=$(git -C "$1" rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
                if [ "$revision" != unknown ] && ! git -C "$1" diff --quiet HEAD -- 2>/dev/null; then
                    revision="$revision+dirty"
                fi
            fi
            mkdir -p "$2"
            text="/// The commit this build is of (Plugins/BuildRevision).
            let buildRevision = \"$revision\""
            [ "$(cat "$2/BuildRevision.swift" 2>/dev/null)" = "$text" ] || printf '%s\n' "$text" > "$2/BuildRevision.swift"
            """#
        var environment: [String: String] = [:]
        if let given = ProcessInfo.processInfo.environment["ORDERLY_REVISION"] {
            environment["ORDERLY_REVISION"] = given
        }
        return [
            .prebuildCommand(
                displayName: "The build's revision", executable: URL(fileURLWithPath: "/bin/sh"),
                arguments: ["-c", script, "sh", context.package.directoryURL.path, folder.path],
                environment: environment, outputFilesDirectory: folder)
        ]
    }
}
