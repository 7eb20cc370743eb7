import Foundation
import PackagePlugin

/// Stamps the bleexplr target with the git commit its sources come from, on every build
/// (plain `swift build` included: no flag that only one build has). The work is
/// scripts/build-stamp's, run by /bin/sh: a prebuild command may only run a program that
/// already exists, and `git` is one.
@main
struct BuildStamp: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let root = context.package.directoryURL
        let out = context.pluginWorkDirectoryURL.appending(path: "Stamp")
        return [.prebuildCommand(displayName: "Stamping \(target.name) with its git commit",
                                 executable: URL(fileURLWithPath: "/bin/sh"),
                                 arguments: [root.appending(path: "scripts/build-stamp").path, root.path, out.path],
                                 outputFilesDirectory: out)]
    }
}
