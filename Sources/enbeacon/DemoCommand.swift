import Simulation
import Agent
import SystemIO

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
        let dir: String
        do { dir = try Posix.makeTemporaryDirectory("/tmp/enbeacon-demo-") } catch {
            err.write("enbeacon demo: cannot create a temporary directory\n")
            return 1
        }
        defer { Posix.removeTree(dir) }
        do {
            let summary = try CareHomeDemo.run(options, dataRoot: dir) { out.write($0 + "\n") }
            return summary.violations == 0 && summary.exposuresCorrect ? 0 : 1
        } catch {
            err.write("enbeacon demo: \(error)\n")
            return 1
        }
    }

    /// Removes the demo's data directories (two levels: one folder per badge).
}
