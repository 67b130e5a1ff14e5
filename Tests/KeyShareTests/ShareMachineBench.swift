import ENCore
@testable import KeyShare
import Network

/// `ShareMachine` with a driver that does nothing but write down: no loop, transport, file or clock. It performs
/// each action into lists, answers `readKeys` with `keys`, runs the timers in virtual seconds, and answers the
/// real request under way as `server` says when it runs (the health authority's answers, as bodies).
struct ShareMachineBench {
    typealias Machine = ShareMachine<SplitMix64>
    typealias Answer = Result<HealthAuthorityResponse, HealthAuthorityTransportFailure>

    /// 2021-06-01T12:00:00Z.
    static let noon: Int64 = 1_622_548_800
    /// 2021-05-31T12:00:00Z: staff enter the code on a badge with keys of 2021-05-30 and 2021-05-31 (`verified`).
    static let consent: Int64 = 1_622_462_400
    static let token = "tok.en"
    static let certificate = "aGVhZA.Y2xhaW1z.c2ln"

    static var settings: KeyShareSettings {
        var settings = KeyShareSettings()
        settings.verificationURL = "http://ha.test"
        settings.apiKey = "the-api-key"
        settings.publishURL = "http://ks.test/v1/publish"
        settings.healthAuthorityID = "ha-id"
        return settings
    }

    /// The health authority answering every call as it should.
    static func healthy(_ endpoint: PublishingEndpoint) -> Answer {
        switch endpoint {
        case .verify: ok(#"{"testtype":"confirmed","token":"\#(token)","padding":"x"}"#)
        case .certificate: ok(#"{"certificate":"\#(certificate)","padding":"x"}"#)
        case .publish: ok(#"{"revisionToken":"rev1","insertedExposures":3}"#)
        }
    }

    static func ok(_ body: String) -> Answer { answer(200, body) }

    static func answer(_ status: Int, _ body: String) -> Answer {
        .success(HealthAuthorityResponse(status: status, body: Array(body.utf8)))
    }

    var machine: Machine
    let start: Int64
    private(set) var elapsed: Duration = .zero
    var trusted = true
    var keys: [TemporaryExposureKey]
    /// How the health authority answers each real request (nil: it does not, yet).
    var server: (PublishingEndpoint) -> Answer? = { ShareMachineBench.healthy($0) }
    /// Whether chaff is answered as soon as it is sent.
    var answersChaff = true

    private(set) var actions: [ShareAction] = []
    /// Real requests, in the order sent, and when.
    private(set) var sent: [(endpoint: PublishingEndpoint, request: HealthAuthorityRequest, at: Int64)] = []
    private(set) var inFlight: PublishingEndpoint?
    private(set) var chaff: [HealthAuthorityRequest] = []
    private(set) var chaffInFlight = false
    private(set) var saved: [ShareRecord] = []
    private(set) var logs: [String] = []
    private(set) var outcomes: [ShareOutcome] = []
    private(set) var answers: [Result<KeyShareStatus, KeyShareError>] = []
    private var wakeDue: Duration?
    private var chaffDue: Duration?

    /// A badge whose keys are those of `days` UTC days up to `start`'s, its record as it was left.
    init(days: Int = 3, start: Int64 = noon, record: ShareRecord = ShareRecord(),
         settings: KeyShareSettings = ShareMachineBench.settings, seed: UInt64 = 3) {
        self.start = start
        let today = ENIntervalNumber(unixSeconds: start)!.dayStart.value
        keys = (0..<days).reversed().map { back in
            Self.key(ENIntervalNumber(today - UInt32(back) * 144))
        }
        machine = Machine(record: record, settings: settings, random: SplitMix64(seed: seed))
    }

    /// A started badge whose staff entered a good code at `consent`.
    static func verified() throws(KeyShareError) -> ShareMachineBench {
        var bench = ShareMachineBench(days: 2, start: consent)
        bench.startService()
        try bench.share()
        return bench
    }

    static func key(_ start: ENIntervalNumber) -> TemporaryExposureKey {
        TemporaryExposureKey(keyData: Bytes16((0..<16).map { UInt8(truncatingIfNeeded: start.value >> ($0 % 4 * 8) + UInt32($0)) })!,
                             rollingStart: start)
    }

    var now: Int64 { start + elapsed.components.seconds }
    var moment: Machine.Moment { .init(unixSeconds: now, isTrusted: trusted) }
    var status: KeyShareStatus { machine.status(clockTrusted: trusted) }
    var record: ShareRecord { machine.record }
    /// What `DATA/share` holds now.
    var onDisk: ShareRecord { saved.last ?? ShareRecord() }
    var endpoints: [PublishingEndpoint] { sent.map(\.endpoint) }
    func bodies(_ endpoint: PublishingEndpoint) -> [[String: JSONValue]] {
        sent.filter { $0.endpoint == endpoint }.compactMap {
            if case .object(let members)? = try? JSONValue.parse(utf8: $0.request.body) { members } else { nil }
        }
    }

    // MARK: Events

    mutating func startService() { perform(machine.start(at: moment)) }

    mutating func stop() { perform(machine.stop()) }

    /// `keys share CODE`; the verification server answers as `server` says.
    mutating func share(_ code: String = "12345678", testDate: UTCDay? = nil,
                        symptomOnset: UTCDay? = nil) throws(KeyShareError) {
        perform(try machine.share(code: code, testDate: testDate, symptomOnset: symptomOnset, at: moment))
        respond()
    }

    mutating func cancel() throws(KeyShareError) { perform(try machine.cancel(at: moment)) }

    mutating func wipe() {
        perform(machine.wipe())
        saved.append(ShareRecord())
        perform(machine.recordDeleted(at: moment))
    }

    mutating func reconfigure(_ settings: KeyShareSettings) {
        perform(machine.reconfigure(settings, at: moment))
        respond()
    }

    /// The request under way answered now, as `answer` says.
    mutating func answer(_ answer: Answer) {
        guard let endpoint = inFlight else { return }
        inFlight = nil
        perform(machine.answered(endpoint, answer, at: moment))
    }

    /// The wall clock moves on to `time`, timers firing as they fall due and `server` answering at once.
    mutating func run(until time: Int64) {
        let end = Duration.seconds(time - start)
        respond()
        while true {
            let due = [wakeDue, chaffDue].compactMap { $0 }.min()
            guard let due, due <= end else { break }
            elapsed = max(elapsed, due)
            if due == wakeDue {
                wakeDue = nil
                perform(machine.wakeTimerFired(at: moment))
            } else {
                chaffDue = nil
                perform(machine.chaffTimerFired())
            }
            respond()
        }
        elapsed = max(elapsed, end)
    }

    mutating func run(for seconds: Int64) { run(until: now + seconds) }

    /// Until the share under way has ended, or `limit` seconds have passed.
    mutating func runUntilIdle(limit: Int64 = 2 * 86_400) {
        let end = now + limit
        while record.pending != nil && now < end { run(for: 60) }
    }

    /// A new day's key, as the advertiser makes one at midnight.
    mutating func addTodaysKey() {
        let today = ENIntervalNumber(unixSeconds: now)!.dayStart
        if !keys.contains(where: { $0.rollingStart == today }) { keys.append(Self.key(today)) }
    }

    /// The chaff under way answered.
    mutating func answerChaff() {
        chaffInFlight = false
        perform(machine.chaffAnswered())
    }

    // MARK: Driver

    private mutating func respond() {
        while true {
            if let endpoint = inFlight, let answer = server(endpoint) {
                inFlight = nil
                perform(machine.answered(endpoint, answer, at: moment))
            } else if chaffInFlight && answersChaff {
                answerChaff()
            } else {
                return
            }
        }
    }

    private mutating func perform(_ list: [ShareAction]) {
        var queue = list
        var next = 0
        while next < queue.count {
            let action = queue[next]
            next += 1
            actions.append(action)
            switch action {
            case .send(let endpoint, let request):
                sent.append((endpoint, request, now))
                inFlight = endpoint
            case .cancelRequest: inFlight = nil
            case .readKeys: queue.insert(contentsOf: machine.keysRead(keys, at: moment), at: next)
            case .saveRecord(let record): saved.append(record)
            case .log(let level, let line): logs.append("\(level) \(line)")
            case .notify(let outcome): outcomes.append(outcome)
            case .answer(let answer): answers.append(answer)
            case .scheduleWake(let delay): wakeDue = elapsed + delay
            case .cancelWake: wakeDue = nil
            case .sendChaff(let request):
                chaff.append(request)
                chaffInFlight = true
            case .cancelChaff: chaffInFlight = false
            case .scheduleChaff(let delay): chaffDue = elapsed + delay
            case .cancelChaffTimer: chaffDue = nil
            }
        }
    }
}
