import EventLoop
@testable import Indicators
import SystemIO
import Testing

/// An output that remembers every change with the loop time it happened at.
final class RecordingOutput: IndicatorOutput {
    let location: String
    let loop: VirtualLoop
    private(set) var changes: [(at: MonotonicInstant, on: Bool)] = []
    private(set) var released = false
    var failing = false

    init(_ location: String, loop: VirtualLoop) {
        self.location = location
        self.loop = loop
    }

    func set(_ on: Bool) throws(SystemError) {
        if failing { throw SystemError(call: "GPIO_V2_LINE_SET_VALUES_IOCTL", path: location, code: 5) }
        if changes.last?.on != on { changes.append((loop.now, on)) }
    }

    func release() { released = true }

    /// The changes from `start`, as milliseconds from `start`.
    func timeline(from start: MonotonicInstant, until end: MonotonicInstant) -> [String] {
        changes.filter { $0.at >= start && $0.at < end }.map { "\(($0.at - start).nanosecondsValue / 1_000_000) \($0.on ? "on" : "off")" }
    }
}

/// The service on a virtual loop: the patterns reach the lines through the loop's timers, the button's
/// gestures act, and stopping leaves everything off and released.
@Suite struct IndicatorServiceTests {
    final class Rig {
        let loop = VirtualLoop()
        var inputs = IndicatorInputs(broadcast: .onAir)
        var acknowledged = 0
        var lines: [String] = []
        let led: RecordingOutput
        let buzzer: RecordingOutput
        let button: VirtualIndicatorButton
        var service: IndicatorService!

        init() {
            led = RecordingOutput("led", loop: loop)
            buzzer = RecordingOutput("buzzer", loop: loop)
            button = VirtualIndicatorButton(loop: loop)
            let log = Logger(level: .info) { [unowned self] _, line in lines.append(line) }
            service = IndicatorService(loop: loop, log: log, inputs: { [unowned self] in inputs }, acknowledge: { [unowned self] in
                let count = inputs.exposuresToAcknowledge
                acknowledged += count
                inputs.exposuresToAcknowledge = 0
                return count
            })
            service.attach(IndicatorLines(led: led, buzzer: buzzer, button: button))
        }

        func run(_ duration: Duration) { loop.run(until: loop.now + duration) }

        func press(for duration: Duration) {
            button.press()
            run(duration)
            button.letGo()
        }
    }

    @Test("on air: the LED flashes 0.15 s every 5 s, from the loop's timers, and nothing else runs")
    func onAirThroughTheLoop() {
        let rig = Rig()
        rig.service.start()
        rig.run(.seconds(12))
        #expect(rig.led.timeline(from: .zero, until: rig.loop.now) == ["0 on", "150 off", "5000 on", "5150 off", "10000 on", "10150 off"])
        #expect(rig.buzzer.changes.map(\.on) == [false])
        // One timer at a time: the next step only.
        #expect(rig.loop.pendingTimerCount == 1)
    }

    @Test("a state change reaches the LED at the next step or at once on refresh")
    func stateChanges() {
        let rig = Rig()
        rig.service.start()
        rig.run(.seconds(1))
        rig.inputs = IndicatorInputs(broadcast: .onAir, exposuresToAcknowledge: 1)
        rig.service.refresh()
        let switched = rig.loop.now
        rig.run(.seconds(1))
        #expect(rig.led.timeline(from: switched, until: rig.loop.now) == ["0 on", "200 off", "400 on", "600 off", "800 on"])
        #expect(rig.buzzer.timeline(from: switched, until: rig.loop.now) == ["0 on", "200 off", "400 on", "600 off", "800 on"])
        #expect(rig.lines.contains("indicator: exposure found: fast blinking, three beeps every 10 s, until acknowledged"))
        // Without refresh the controller fault shows at the next step of the pattern, within 0.2 s here.
        rig.inputs = IndicatorInputs(broadcast: .waitingForController, controllerFault: true)
        rig.run(.seconds(1))
        #expect(rig.service.state == .controllerFault)
    }

    @Test("a short press acknowledges the exposure signal: a beep, a second lit, then on air again")
    func shortPressAcknowledges() {
        let rig = Rig()
        rig.inputs = IndicatorInputs(broadcast: .onAir, exposuresToAcknowledge: 2)
        rig.service.start()
        rig.run(.milliseconds(3_170))
        #expect(rig.service.state == .exposureFound)
        // Let go at 3.47 s: recognised at 3.5 s, when the exposure pattern has the LED dark.
        rig.press(for: .milliseconds(300))
        let released = rig.loop.now
        rig.run(.seconds(8))
        #expect(rig.acknowledged == 2)
        #expect(rig.service.state == .onAir)
        // Recognised 30 ms after letting go: the acknowledgement (0.1 s beep, lit to 1 s, 0.5 s dark), then on air.
        let led = rig.led.timeline(from: released, until: rig.loop.now)
        #expect(led.prefix(2) == ["30 on", "1030 off"], "\(led)")
        #expect(led.dropFirst(2).prefix(2) == ["1530 on", "1680 off"], "\(led)")
        #expect(rig.buzzer.timeline(from: released + .milliseconds(30), until: rig.loop.now) == ["0 on", "100 off"])
        #expect(rig.lines.contains("indicator: exposure signal acknowledged (2 exposure(s); they stay recorded)"))
    }

    @Test("a long press shows the status while the button is still held; a press ends a find")
    func longPressAndFind() {
        let rig = Rig()
        rig.inputs = IndicatorInputs(broadcast: .waitingForClock, exposuresRecorded: true)
        rig.service.start()
        rig.run(.seconds(6))
        rig.button.press()
        let pressed = rig.loop.now
        rig.run(.milliseconds(2_100))
        #expect(rig.service.signal == .statusReport(.waitingForClock, exposuresRecorded: true))
        rig.button.letGo()
        rig.run(.seconds(8))
        #expect(rig.led.timeline(from: pressed, until: pressed + .milliseconds(7_500))
                    == ["2000 on", "3000 off", "4000 on", "4300 off", "4800 on", "5100 off", "6100 on"])

        #expect(rig.service.find())
        rig.run(.seconds(10))
        #expect(rig.service.signal == .find)
        rig.press(for: .milliseconds(200))
        rig.run(.milliseconds(100))
        #expect(rig.service.signal == nil)
        #expect(rig.acknowledged == 0, "the press ended the find; nothing to acknowledge")
    }

    @Test("the key share's outcome plays once")
    func keyShareOutcome() {
        let rig = Rig()
        rig.service.start()
        rig.run(.seconds(1))
        rig.service.keyShareFinished(succeeded: false)
        #expect(rig.service.signal == .keyShareFailed)
        rig.run(.seconds(6))
        #expect(rig.service.signal == nil)
    }

    @Test("stop switches everything off and releases the lines; a failing line is logged once")
    func stopAndFailures() {
        let rig = Rig()
        rig.inputs = IndicatorInputs(broadcast: .onAir, exposuresToAcknowledge: 1)
        rig.service.start()
        rig.run(.milliseconds(500))
        rig.led.failing = true
        rig.run(.seconds(3))
        #expect(rig.lines.filter { $0.hasPrefix("indicator: cannot switch the LED (led)") }.count == 1)
        rig.led.failing = false
        rig.run(.milliseconds(500))
        #expect(rig.lines.contains("indicator: the LED works again"))
        rig.service.stop()
        #expect(rig.led.changes.last?.on == false && rig.buzzer.changes.last?.on == false)
        #expect(rig.led.released && rig.buzzer.released)
        #expect(rig.loop.pendingTimerCount == 0)
        rig.button.press()
        rig.run(.seconds(3))
        #expect(rig.acknowledged == 0, "a released button is not heard")
    }

    @Test("without lines nothing runs; find and test say so")
    func withoutLines() {
        let loop = VirtualLoop()
        let service = IndicatorService(loop: loop, log: .silent, inputs: { IndicatorInputs(broadcast: .onAir) },
                                       acknowledge: { 0 })
        service.start()
        #expect(!service.isRunning)
        #expect(!service.find() && !service.test())
        #expect(loop.pendingTimerCount == 0)
        #expect(service.state == .onAir)
    }
}
