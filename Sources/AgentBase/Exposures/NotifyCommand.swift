import EventLoop
import SystemIO

/// Runs `notify.command` with `/bin/sh -c`, handing it one document on stdin, without ever blocking the loop.
///
/// The child is spawned (posix_spawn, so a large agent is not copied), its stdin fed through a socket pair
/// by a `DescriptorWriter` (a command that exits without reading gets EPIPE, never a SIGPIPE that would kill
/// the agent), its
/// stdout joined to the agent's stderr (the console owns stdout), and its exit collected on the loop by
/// polling `waitpid(WNOHANG)` with a growing interval. A command that fails or hangs is logged, killed after
/// `timeLimit`, and never affects the agent.
package final class NotifyCommand {
    package let command: String
    /// A command still running after this is killed.
    var timeLimit: Duration = .seconds(300)
    /// Children started and not yet reaped.
    package private(set) var running = 0
    package private(set) var started = 0
    /// Children that exited with a non-zero status, were killed, or could not be started.
    package private(set) var failed = 0
    /// Called with each child's exit status (128 + signal for a killed one) once it is reaped.
    var onExit: (Int32) -> Void = { _ in }

    private let loop: any EventLoop
    private let log: Logger
    /// The stdin of each child still being fed, by descriptor.
    private var feeders: [Int32: DescriptorWriter] = [:]

    init(_ command: String, loop: any EventLoop, log: Logger) {
        self.command = command
        self.loop = loop
        self.log = log
    }

    deinit {
        for (fd, writer) in feeders {
            writer.stop()
            DescriptorIO.close(fd)
        }
    }

    /// Starts the command with `input` on its stdin; `label` names it in log lines.
    package func run(input: [UInt8], label: String) {
        let feedEnd: Int32, childStdin: Int32
        do { (feedEnd, childStdin) = try UnixSocket.pair() } catch {
            fail(label, "\(error)")
            return
        }
        let pid: Int32
        do { pid = try ChildProcess.spawnShell(command, stdin: childStdin) } catch {
            DescriptorIO.close(childStdin)
            DescriptorIO.close(feedEnd)
            fail(label, "cannot start /bin/sh: \(error.reason)")
            return
        }
        DescriptorIO.close(childStdin)
        started += 1
        running += 1
        log.debug("notify: started pid \(pid) for \(label)")
        feed(feedEnd, input, label: label)
        // The first look comes from the loop too, so `onExit` never runs inside `run`.
        let startedAt = loop.now
        loop.schedule(after: .milliseconds(5)) { [self] in  // the loop holds the runner until its child is reaped
            reap(pid, label: label, startedAt: startedAt, wait: .milliseconds(10))
        }
    }

    /// Writes `input` as the child takes it and closes its stdin when all is written, or when the child stops
    /// reading.
    private func feed(_ fd: Int32, _ input: [UInt8], label: String) {
        let writer = DescriptorWriter(loop: loop, fd: fd)
        feeders[fd] = writer
        // The writer holds the runner until `finishFeeding` stops it.
        writer.onDrained = { [self] in finishFeeding(fd) }
        writer.onFailure = { [self] _ in
            // EPIPE or ECONNRESET: the command did not want (all of) its input. Its exit status tells the rest.
            log.debug("notify: \(label): stdin closed early")
            finishFeeding(fd)
        }
        writer.append(input)
    }

    private func finishFeeding(_ fd: Int32) {
        guard let writer = feeders.removeValue(forKey: fd) else { return }
        writer.stop()
        DescriptorIO.close(fd)
    }

    private func reap(_ pid: Int32, label: String, startedAt: MonotonicInstant, wait: Duration, killed: Bool = false) {
        let exitStatus: Int32
        switch ChildProcess.state(of: pid) {
        case .running:
            let overdue = !killed && loop.now - startedAt > timeLimit
            if overdue {
                log.warn("notify: \(label): still running after \(timeLimit.humanReadable), killing process group \(pid)")
                ChildProcess.killGroup(pid)
            }
            loop.schedule(after: wait) { [self] in
                reap(pid, label: label, startedAt: startedAt, wait: min(wait * 2, .milliseconds(500)),
                           killed: killed || overdue)
            }
            return
        case .interrupted:
            loop.schedule(after: .zero) { [self] in
                reap(pid, label: label, startedAt: startedAt, wait: wait, killed: killed)
            }
            return
        case .uncollectable(let error):
            exitStatus = 255
            log.warn("notify: \(label): cannot collect pid \(pid): \(error.reason)")
        case .exited(let status):
            exitStatus = status
        }
        running -= 1
        if exitStatus != 0 {
            failed += 1
            log.warn(.notifyFailed, "notify: \(label): command failed with status \(exitStatus)")
        } else {
            log.debug("notify: \(label): command done")
        }
        onExit(exitStatus)
    }

    private func fail(_ label: String, _ reason: String) {
        failed += 1
        log.error(.notifyFailed, "notify: \(label): \(reason)")
    }
}
