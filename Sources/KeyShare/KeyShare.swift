import AgentBase
import ENCore
import EventLoop
import Network
import SystemIO

/// Shares a positive wearer's keys through the health authority (PUBLISH.md): the code staff type is checked
/// at once (`/api/verify`), and once the UTC day of consent has ended — the day's key is off the air — the keys
/// of complete days get a certificate (`/api/certificate`, with the HMAC over exactly those keys) and are
/// published (`/v1/publish`) at once.
///
/// Everything it must not lose is in `DATA/share` (see `ShareRecord`) before it is acted on, so a restart
/// resumes where it was. Network errors and 5xx are retried with backoff on the loop for as long as the token
/// (or, once used, the certificate) lives; a share that runs out of time is reported, never dropped silently.
/// Every outcome goes to the log (without a code, token, certificate, secret or key), to `keys share status`
/// and `status`, and to `notify.command` as a `keyShare` event.
///
/// Those rules are `ShareMachine`'s, a value with no I/O; this class is its driver on the loop: it feeds the
/// machine events (staff's commands, the transport's answers, its timers, the clock and the settings) and
/// performs the actions it answers with, through the `NetworkTransport`, `DATA/share`, the log and the
/// notifier.
package final class KeyShare {
    package var settings: KeyShareSettings { machine.settings }
    /// The last failed write of `DATA/share`, nil once one succeeds.
    package private(set) var storageError: SystemError?
    /// Chaff requests sent since start.
    var chaffSent: Int { machine.chaffSent }
    /// Called with every outcome once it is on disk (the agent shows the final ones on the LED and buzzer).
    package var onOutcome: ((ShareOutcome) -> Void)?

    private let loop: any EventLoop
    private let clock: Clock
    /// The badge's own keys (the advertiser's, as in `DATA/keys`).
    private let ownKeys: () -> [TemporaryExposureKey]
    private let transport: any NetworkTransport
    private let notifier: ExposureNotifier
    private let fileSystem: any FileSystem
    private let path: String
    private let log: Logger

    /// Every rule of the share; this class only performs what it asks and tells it what came of it.
    private var machine: ShareMachine<ServiceRandom>
    private var wakeTimer: TimerHandle?
    private var chaffTimer: TimerHandle?
    /// Drops the real request under way (a code check, a certificate or a publish).
    private var cancelRequest: (() -> Void)?
    /// Whom `keys share CODE` answers once the verification server has.
    private var answer: ((Result<KeyShareStatus, KeyShareError>) -> Void)?
    private var cancelChaff: (() -> Void)?

    package init(loop: any EventLoop, clock: Clock, ownKeys: @escaping () -> [TemporaryExposureKey],
                transport: any NetworkTransport, settings: KeyShareSettings, notifier: ExposureNotifier,
                fileSystem: any FileSystem, dataDirectory: String,
                generator: ServiceRandom = .system, log: Logger) {
        self.loop = loop
        self.clock = clock
        self.ownKeys = ownKeys
        self.transport = transport
        self.notifier = notifier
        self.fileSystem = fileSystem
        path = dataDirectory + "/" + ShareRecord.fileName
        self.log = log
        let record = (try? fileSystem.contents(of: path)).map { ShareRecord(text: String(decoding: $0, as: UTF8.self)) }
        machine = ShareMachine(record: record ?? ShareRecord(), settings: settings, random: generator)
    }

    /// Resumes what `DATA/share` holds: a share due is published (once the clock is trusted), one whose time
    /// ran out while the badge was off is reported.
    package func start() { perform(machine.start(at: now)) }

    /// Drops requests under way (a share resumes at the next start) and the timers.
    package func stop() { perform(machine.stop()) }

    /// New `share.*` settings: a share waiting because of them is tried again at once.
    package func reconfigure(_ settings: KeyShareSettings) { perform(machine.reconfigure(settings, at: now)) }

    /// The clock became trusted, or jumped: what is due is judged by the new time.
    package func clockChanged() { perform(machine.clockChanged(at: now)) }

    // MARK: Staff

    /// `keys share CODE`: checks the code with the verification server now; `answer` gets the share as it then
    /// stands, or why the code was not accepted. Throws, before anything leaves the badge, when the share cannot
    /// start at all.
    package func share(code typed: String, testDate: UTCDay?, symptomOnset: UTCDay?,
                      answer: @escaping (Result<KeyShareStatus, KeyShareError>) -> Void) throws(KeyShareError) {
        let actions = try machine.share(code: typed, testDate: testDate, symptomOnset: symptomOnset, at: now)
        self.answer = answer
        perform(actions)
    }

    /// `keys share cancel`: ends the share under way; its token is thrown away (a new share needs a new code).
    @discardableResult
    package func cancel() throws(KeyShareError) -> KeyShareStatus {
        perform(try machine.cancel(at: now))
        return status
    }

    /// `wipe`: the share under way and what an earlier publish left are deleted with the keys they are about.
    package func removeAll() throws(SystemError) {
        perform(machine.wipe())
        try fileSystem.removeFile(path)
        storageError = nil
        perform(machine.recordDeleted(at: now))
    }

    package var status: KeyShareStatus { machine.status(clockTrusted: clock.isTrusted) }

    // MARK: Actions

    private var now: ShareMachine<ServiceRandom>.Moment { .init(unixSeconds: clock.unixSeconds, isTrusted: clock.isTrusted) }

    /// Performs `actions` in order; the machine's answer to one the driver answers on the spot (`readKeys`) is
    /// next in line.
    private func perform(_ actions: [ShareAction]) { ActionQueue.perform(actions, execute) }

    private func execute(_ action: ShareAction) -> [ShareAction] {
        switch action {
        case .send(let endpoint, let request):
            cancelRequest = transport.send(request) { [self] result in
                cancelRequest = nil
                perform(machine.answered(endpoint, result, at: now))
            }
        case .cancelRequest:
            cancelRequest?()
            cancelRequest = nil
        case .readKeys:
            return machine.keysRead(ownKeys(), at: now)
        case .saveRecord(let record):
            save(record)
        case .log(let level, let line):
            log.log(level, line)
        case .notify(let outcome):
            notifier.notify(event: outcome.eventJSON, label: "key share \(outcome.kind.rawValue)")
            onOutcome?(outcome)
        case .answer(let result):
            let staff = answer
            answer = nil
            staff?(result)
        case .scheduleWake(let delay):
            if let wakeTimer { loop.cancel(wakeTimer) }
            wakeTimer = loop.schedule(after: delay) { [self] in
                wakeTimer = nil
                perform(machine.wakeTimerFired(at: now))
            }
        case .cancelWake:
            if let wakeTimer { loop.cancel(wakeTimer) }
            wakeTimer = nil
        case .sendChaff(let request):
            cancelChaff = transport.send(request) { [self] _ in
                cancelChaff = nil
                perform(machine.chaffAnswered())
            }
        case .cancelChaff:
            cancelChaff?()
            cancelChaff = nil
        case .scheduleChaff(let delay):
            if let chaffTimer { loop.cancel(chaffTimer) }
            chaffTimer = loop.schedule(after: delay) { [self] in
                chaffTimer = nil
                perform(machine.chaffTimerFired())
            }
        case .cancelChaffTimer:
            if let chaffTimer { loop.cancel(chaffTimer) }
            chaffTimer = nil
        }
        return []
    }

    private func save(_ record: ShareRecord) {
        do {
            if record.isEmpty {
                try fileSystem.removeFile(path)
            } else {
                try fileSystem.replaceAtomically(path, with: Array(record.text.utf8))
            }
            if storageError != nil { log.info("key share: \(path) written again") }
            storageError = nil
        } catch {
            if storageError != error {
                log.error(.keyShareUnsaved, "key share: cannot write \(path) (\(error)): the share goes on, but a restart now would lose it")
            }
            storageError = error
        }
    }
}
