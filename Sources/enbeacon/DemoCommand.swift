import Simulation
import Agent
#if canImport(Glibc)
import Glibc
#endif

/// `enbeacon demo`: the care-home scenario in virtual time.
enum DemoCommand {
    static let help = """
        usage: enbeacon demo [--days N] [--badges N] [--seed N]

        A care home in virtual time: residents wear badges, staff carry phones; they meet over days.
        The morning after, the first resident tests positive, her keys are published as a signed
        export, and every other badge downloads it: those who met her are told, the others are not.
        Every badge is a full agent with its own data directory (a temporary folder, removed afterwards).
        Prints a timeline and a verdict in seconds.
          --days N     simulated days, 1-30 (default 3)
          --badges N   residents with badges, 2-12 (default 4)
          --seed N     the simulation's seed (default 1): the same seed gives the same story
        """

    static func parse(_ arguments: inout Arguments) throws(UsageError) -> CareHomeDemo.Options {
        var options = CareHomeDemo.Options()
        func number(_ name: String, _ range: ClosedRange<Int>) throws(UsageError) -> Int? {
            guard let text = try arguments.option(name) else { return nil }
            guard let n = Int(text), range.contains(n) else {
                throw UsageError(arguments.command, "\(name): expected \(range.lowerBound)-\(range.upperBound), got '\(text)'")
            }
            return n
        }
        if let n = try number("--days", 1...30) { options.days = n }
        if let n = try number("--badges", 2...12) { options.badges = n }
        if let text = try arguments.option("--seed") {
            guard let n = UInt64(text) else { throw UsageError(arguments.command, "--seed: expected a whole number, got '\(text)'") }
            options.seed = n
        }
        try arguments.finish()
        return options
    }

    static func run(_ options: CareHomeDemo.Options, out: FileOutput, err: FileOutput) -> Int32 {
        var template = Array("/tmp/enbeacon-demo-XXXXXX".utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            err.write("enbeacon demo: cannot create a temporary directory\n")
            return 1
        }
        let dir = String(cString: made)
        defer { removeTree(dir) }
        do {
            let summary = try CareHomeDemo.run(options, dataRoot: dir) { out.write($0 + "\n") }
            return summary.violations == 0 && summary.exposuresCorrect ? 0 : 1
        } catch {
            err.write("enbeacon demo: \(error)\n")
            return 1
        }
    }

    /// Removes the demo's data directories (two levels: one folder per badge).
    static func removeTree(_ path: String) {
        guard let d = opendir(path) else { unlink(path); return }
        while let entry = readdir(d) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self) }
            if name == "." || name == ".." { continue }
            let child = path + "/" + name
            if unlink(child) != 0 { removeTree(child) }
        }
        closedir(d)
        rmdir(path)
    }
}
