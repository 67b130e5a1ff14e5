import Foundation
import Testing

/// In a chroot or an image being built /proc may be absent, and the agent reads its arguments from
/// /proc/self/cmdline (the board build has no CommandLine). A maintainer script's `enbeacon --version` there
/// once started the agent on the virtual board instead; it must refuse, saying why.
@Suite struct CommandLineWithoutProcTests {
    static var canHideProc: Bool {
        getuid() == 0 && Enbeacon.emulator == nil && FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare")
    }

    @Test(.enabled(if: canHideProc, "needs root, unshare and a native agent to run it in a mount namespace without /proc"))
    func withoutProcItRefusesInsteadOfStartingTheAgent() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
        process.arguments = ["--mount", "--propagation", "private", "sh", "-c",
                             "umount -l /proc && exec \"$0\" --version", Enbeacon.binary.path]
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        process.waitUntilExit()
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let stdout = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(process.terminationStatus == 2)
        #expect(stdout.isEmpty)
        #expect(stderr == "enbeacon: cannot read its command line from /proc/self/cmdline (is /proc mounted?)\n")
    }
}
