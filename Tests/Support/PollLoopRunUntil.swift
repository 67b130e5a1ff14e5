import EventLoop

extension PollLoop {
    /// Runs the loop until `done()` holds (checked every few milliseconds) or `timeout` passes; true when done.
    @discardableResult
    public func run(until done: @escaping () -> Bool, timeout: Duration = .seconds(30)) -> Bool {
        let deadline = now + timeout
        var check: (() -> Void)!
        var checker: TimerHandle?
        check = { [unowned self] in
            if done() || self.now >= deadline {
                self.stop()
            } else {
                checker = self.schedule(after: .milliseconds(5), check)
            }
        }
        checker = schedule(after: .zero, check)
        run()
        if let checker { cancel(checker) }
        check = nil
        return done()
    }
}
