import Agent
import ENCore
import Simulation
import SystemIO

/// Entry point: argument parsing, wiring and exit codes (0 success, 1 failure, 2 usage).
@main
enum Enbeacon {
    static let version = "0.1.0"

    static let help = """
        enbeacon \(version): a GAEN Exposure Notification badge agent for Linux single-board computers.

        usage: enbeacon [COMMAND] [OPTIONS]    (no command: run the agent on the default board)

        commands:
          run          the agent: advertise rotating RPIs, scan, store, download keys, match
          derive       print the RPIs and AEMs a TEK produces
          export       decode an export file, or verify its signature (export decode, export verify)
          match        offline exposure detection: export files against sightings, scored
          risk         the Corona-Warn-App's risk calculation on exposure windows from a file
          bench        benchmarks that print figures (bench match)
          demo         a care home in virtual time: badges and phones meeting over days
          ctl          run one console command on the running agent (enbeacon ctl help lists them)
          config       check a configuration file without starting the agent (config check FILE)
          --help       this text;  enbeacon COMMAND --help explains one command
          --version    print the version
        """

    static func main() {
        let out = FileOutput(fd: 1)
        let err = FileOutput(fd: 2, bufferLimit: 0)
        func finish(_ status: Int32 = 0) -> Never {
            out.flush()
            Posix.exit(status)
        }
        func fail(_ message: String, status: Int32) -> Never {
            err.write(message + "\n")
            finish(status)
        }

        let arguments = Posix.arguments()
        // Without /proc (a chroot, an image being built) the arguments cannot be read: starting the agent on the
        // default board instead of doing what was asked (`enbeacon --version` in a maintainer script) is worse.
        if arguments.isEmpty {
            fail("enbeacon: cannot read its command line from /proc/self/cmdline (is /proc mounted?)", status: 2)
        }
        var argv = arguments.dropFirst()
        let command = argv.first.map { $0.hasPrefix("-") ? "run" : $0 } ?? "run"
        if argv.first == command { argv = argv.dropFirst() }
        let wantsHelp = argv.contains("--help") || argv.contains("-h")
        if command == "run" && arguments.dropFirst().first.map({ $0 == "--help" || $0 == "-h" }) == true {
            out.write(help + "\n")
            finish()
        }

        switch command {
        case "run" where argv.first == "--version" || argv.first == "-V":
            out.write("enbeacon \(version)\n")
        case "help":
            out.write(help + "\n")
        case "derive":
            if wantsHelp { out.write(DeriveCommand.help + "\n"); finish() }
            var arguments = Arguments(argv, command: command)
            var sink = out
            let request: DeriveCommand.Request
            do throws(UsageError) { request = try DeriveCommand.parse(&arguments) } catch { fail(error.message, status: 2) }
            do throws(CryptoError) { DeriveCommand.run(request, schedule: try KeySchedule(), output: &sink) } catch {
                fail("enbeacon derive: \(error)", status: 1)
            }
        case "export":
            if wantsHelp { out.write(ExportCommand.help + "\n"); finish() }
            var arguments = Arguments(argv, command: command)
            do throws(UsageError) {
                if case .failure(let failure) = try ExportCommand.run(&arguments, out: out) {
                    fail(failure.message, status: 1)
                }
            } catch {
                fail(error.message, status: 2)
            }
        case "match":
            if wantsHelp { out.write(MatchCommand.help + "\n"); finish() }
            var arguments = Arguments(argv, command: command)
            do throws(UsageError) {
                let request = try MatchCommand.parse(&arguments)
                do throws(CommandFailure) { try MatchCommand.run(request, out: out, err: err) } catch {
                    fail("enbeacon match: \(error)", status: 1)
                }
            } catch {
                fail(error.message, status: 2)
            }
        case "risk":
            if wantsHelp { out.write(RiskCommand.help + "\n"); finish() }
            var arguments = Arguments(argv, command: command)
            do throws(UsageError) {
                let request = try RiskCommand.parse(&arguments)
                do throws(CommandFailure) { try RiskCommand.run(request, out: out) } catch { fail("enbeacon risk: \(error)", status: 1) }
            } catch {
                fail(error.message, status: 2)
            }
        case "demo":
            if wantsHelp { out.write(DemoCommand.help + "\n"); finish() }
            var arguments = Arguments(argv, command: command)
            do throws(UsageError) {
                let options = try DemoCommand.parse(&arguments)
                finish(DemoCommand.run(options, out: out, err: err))
            } catch {
                fail(error.message, status: 2)
            }
        case "bench":
            if wantsHelp { out.write(BenchCommand.help + "\n"); finish() }
            var arguments = Arguments(argv, command: command)
            do throws(UsageError) {
                finish(try BenchCommand.run(&arguments, out: out))
            } catch {
                fail(error.message, status: 2)
            }
        case "run":
            if wantsHelp { out.write(RunCommand.help + "\n"); finish() }
            var arguments = Arguments(argv, command: command)
            do throws(UsageError) {
                let request = try RunCommand.parse(&arguments)
                finish(RunCommand.run(request, err: err))
            } catch {
                fail(error.message, status: 2)
            }
        case "config":
            if wantsHelp { out.write(ConfigCommand.help + "\n"); finish() }
            var arguments = Arguments(argv, command: command)
            do throws(UsageError) {
                let request = try ConfigCommand.parse(&arguments)
                do throws(CommandFailure) { try ConfigCommand.run(request, out: out) } catch {
                    fail("enbeacon config: \(error)", status: 1)
                }
            } catch {
                fail(error.message, status: 2)
            }
        case "ctl":
            // Not `wantsHelp`: `--help` after the console command is the agent's (ctl keys --help).
            do throws(UsageError) {
                guard let request = try CtlCommand.parse(Array(argv)) else {
                    out.write(CtlCommand.help + "\n")
                    finish()
                }
                finish(CtlCommand.run(request, out: out, err: err))
            } catch {
                fail(error.message, status: 2)
            }
        default:
            fail("enbeacon: unknown command '\(command)' (see enbeacon --help)", status: 2)
        }
        finish()
    }
}
