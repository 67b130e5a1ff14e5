import EventLoop
import SystemIO

/// The wearer's and the staff's signals on the loop: plays the state's pattern on the LED and buzzer with one
/// timer at a time (never a thread), plays one-off signals over it (find, test, a press acknowledged, a key
/// share's outcome), and turns the button's edges into gestures — a short press acknowledges the exposure
/// signal (the exposure stays recorded) or ends a find, a long press shows the status.
///
/// The state is derived afresh at every step of the pattern (every few seconds at most) and whenever the
/// agent says something changed (`refresh`), from `IndicatorInputs` the agent supplies. Without any line
/// attached nothing runs.
package final class IndicatorService {
    package private(set) var lines = IndicatorLines()
    package private(set) var isRunning = false

    private let loop: any EventLoop
    private let log: Logger
    private let inputs: () -> IndicatorInputs
    private let acknowledgeExposures: () -> Int
    private var scheduler: IndicatorScheduler
    private var timer: TimerHandle?
    private var gestures = ButtonGestures()
    private var gestureTimer: TimerHandle?
    /// What each output was last set to, so a line is written only when its level changes.
    private var written: IndicatorLevels?
    /// Outputs whose writes failed, so a failing line is logged once.
    private var failingOutputs: Set<String> = []

    /// `inputs`: the facts the state is derived from. `acknowledge`: marks every signalled exposure as
    /// acknowledged and returns how many were.
    package init(loop: any EventLoop, log: Logger, inputs: @escaping () -> IndicatorInputs,
                acknowledge: @escaping () -> Int) {
        self.loop = loop
        self.log = log
        self.inputs = inputs
        acknowledgeExposures = acknowledge
        scheduler = IndicatorScheduler(at: loop.now)
    }

    /// Gives the service its lines (before `start`).
    package func attach(_ lines: IndicatorLines) {
        precondition(!isRunning, "indicator lines are attached before the agent starts")
        self.lines = lines
    }

    var hasOutputs: Bool { lines.led != nil || lines.buzzer != nil }

    package func start() {
        guard !isRunning, !lines.isEmpty else { return }
        isRunning = true
        lines.button?.start { pressed, time in self.buttonEdge(pressed: pressed, at: time) }
        scheduler = IndicatorScheduler(state: inputs().state, at: loop.now)
        step()
    }

    /// Switches the outputs off and gives every line back.
    package func stop() {
        guard isRunning else { return }
        isRunning = false
        cancelTimers()
        write(.dark)
        lines.led?.release()
        lines.buzzer?.release()
        lines.button?.release()
    }

    /// Looks at the state again now (the agent calls this when an exposure is found, the clock is trusted…).
    package func refresh() {
        guard isRunning else { return }
        step()
    }

    // MARK: What the console and the share flow ask for

    /// The state as the inputs say now, whether or not any line shows it (the LED follows within one step
    /// of its pattern, 5 s at most).
    package var state: IndicatorState { inputs().state }

    /// What the LED and buzzer were last set to (dark when stopped).
    package var levels: IndicatorLevels { isRunning ? written ?? .dark : .dark }

    /// The signal playing now, if any.
    package var signal: IndicatorSignal? { scheduler.signal(at: loop.now) }

    /// `find`: blink and beep for a minute. False without an LED or buzzer.
    @discardableResult
    package func find() -> Bool { play(.find) }

    /// Ends a find (or any signal) early; false if none was playing.
    @discardableResult
    package func stopSignal() -> Bool {
        guard isRunning, signal != nil else { return false }
        scheduler.stopSignal(at: loop.now)
        step()
        return true
    }

    /// `indicator test`: every pattern once. False without an LED or buzzer.
    @discardableResult
    package func test() -> Bool { play(.test) }

    /// The key share's end, with keys at the key server or without: the LED (and buzzer) say so once.
    /// Harmless without lines.
    package func keyShareFinished(succeeded: Bool) {
        play(succeeded ? .keyShareSucceeded : .keyShareFailed)
    }

    /// Acknowledges the exposure signal, as a short press does; returns how many exposures were acknowledged.
    @discardableResult
    package func acknowledge() -> Int {
        let count = acknowledgeExposures()
        if count > 0 {
            log.info("indicator: exposure signal acknowledged (\(count) exposure(s); they stay recorded)")
            play(.acknowledged)
        }
        refresh()
        return count
    }

    @discardableResult
    private func play(_ signal: IndicatorSignal) -> Bool {
        guard isRunning, hasOutputs else { return false }
        scheduler.play(signal, at: loop.now)
        step()
        return true
    }

    // MARK: The pattern on the loop's timer

    private func step() {
        if let timer { loop.cancel(timer) }
        timer = nil
        let now = loop.now
        scheduler.advance(to: now)
        let state = inputs().state
        if state != scheduler.state {
            log.info("indicator: \(state)")
            scheduler.show(state, at: now)
        }
        write(scheduler.levels(at: now))
        timer = loop.schedule(at: scheduler.nextStep(after: now)) { [self] in
            timer = nil
            step()
        }
    }

    private func write(_ levels: IndicatorLevels) {
        if let led = lines.led, written?.led != levels.led { set(led, "LED", levels.led) }
        if let buzzer = lines.buzzer, written?.buzzer != levels.buzzer { set(buzzer, "buzzer", levels.buzzer) }
        written = levels
    }

    private func set(_ output: any IndicatorOutput, _ name: String, _ on: Bool) {
        do {
            try output.set(on)
            if failingOutputs.remove(name) != nil { log.info("indicator: the \(name) works again") }
        } catch {
            if failingOutputs.insert(name).inserted { log.error(.indicatorFailed, "indicator: cannot switch the \(name) (\(output.location)): \(error)") }
        }
    }

    private func cancelTimers() {
        if let timer { loop.cancel(timer) }
        if let gestureTimer { loop.cancel(gestureTimer) }
        timer = nil
        gestureTimer = nil
    }

    // MARK: The button

    private func buttonEdge(pressed: Bool, at time: MonotonicInstant) {
        guard isRunning else { return }
        handle(gestures.edge(pressed: pressed, at: time))
        scheduleGestureCheck()
    }

    private func scheduleGestureCheck() {
        if let gestureTimer { loop.cancel(gestureTimer) }
        gestureTimer = nil
        guard let deadline = gestures.nextDeadline else { return }
        gestureTimer = loop.schedule(at: deadline) { [self] in
            gestureTimer = nil
            handle(gestures.advance(to: max(loop.now, deadline)))
            scheduleGestureCheck()
        }
    }

    private func handle(_ gestures: [ButtonGestures.Gesture]) {
        for gesture in gestures {
            switch gesture {
            case .shortPress:
                log.info("indicator: button pressed")
                // A press first ends what is playing (staff found the badge), then acknowledges.
                if stopSignal() { continue }
                acknowledge()
            case .longPress:
                log.info("indicator: button held: showing the status")
                let now = inputs()
                play(.statusReport(now.state == .exposureFound ? healthState(now) : now.state,
                                   exposuresRecorded: now.exposuresRecorded))
            }
        }
    }

    /// The state the inputs would give without the exposure signal: what a status report counts.
    private func healthState(_ inputs: IndicatorInputs) -> IndicatorState {
        var healthOnly = inputs
        healthOnly.exposuresToAcknowledge = 0
        return healthOnly.state
    }
}
