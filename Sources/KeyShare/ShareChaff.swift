import ENCore
import EventLoop
import Network

/// Chaff: exchanges shaped like a real share's (a code check, or a certificate request followed at once by a
/// publish), marked `X-Chaff: 1`, at random times, `share.chaff_per_day` a day on average, so that an observer
/// of the badge's traffic cannot tell a real share by its rhythm or its absence. Answers are not read (the
/// verification server's is not even JSON). A value with no I/O, part of `ShareMachine`.
struct ShareChaff {
    private enum Stage: Equatable {
        case idle
        /// The first request is out; `then` goes once it is answered.
        case first(then: HealthAuthorityRequest?)
        case second
    }

    /// Chaff exchanges started.
    private(set) var sent = 0
    private var stage = Stage.idle
    private var timerSet = false

    /// The timer for the next exchange, drawn anew: uniformly within 0.1–1.9 times the mean gap. None when
    /// chaff is off, the share service stopped, or `share.*` incomplete.
    mutating func plan(_ settings: KeyShareSettings, running: Bool,
                       using random: inout some RandomNumberGenerator) -> [ShareAction] {
        var actions: [ShareAction] = timerSet ? [.cancelChaffTimer] : []
        timerSet = false
        guard running, settings.chaffPerDay > 0, settings.isConfigured else { return actions }
        let meanGap = 86_400.0 / Double(settings.chaffPerDay)
        let gap = meanGap * Double.random(in: 0.1..<1.9, using: &random)
        timerSet = true
        actions.append(.scheduleChaff(after: .seconds(gap)))
        return actions
    }

    /// The timer fired: an exchange, unless a real request (or the last chaff) is under way, then the next timer.
    mutating func timerFired(_ settings: KeyShareSettings, running: Bool, realRequestUnderWay: Bool,
                             using random: inout some RandomNumberGenerator) -> [ShareAction] {
        timerSet = false
        let exchange = realRequestUnderWay ? [] : start(settings, using: &random)
        return exchange + plan(settings, running: running, using: &random)
    }

    /// A chaff request came back: a certificate request's publish follows, unless a real certificate or publish
    /// went out meanwhile.
    mutating func answered(publishing: Bool) -> [ShareAction] {
        guard case .first(let then) = stage else {
            stage = .idle
            return []
        }
        guard let then, !publishing else {
            stage = .idle
            return []
        }
        stage = .second
        return [.sendChaff(then)]
    }

    /// The service stops: the exchange under way and the timer are dropped.
    mutating func stop() -> [ShareAction] {
        var actions: [ShareAction] = stage == .idle ? [] : [.cancelChaff]
        if timerSet { actions.append(.cancelChaffTimer) }
        stage = .idle
        timerSet = false
        return actions
    }

    private mutating func start(_ settings: KeyShareSettings, using random: inout some RandomNumberGenerator) -> [ShareAction] {
        guard stage == .idle, let healthAuthorityID = settings.healthAuthorityID, let verify = settings.url(for: .verify),
              let certificate = settings.url(for: .certificate), let publish = settings.url(for: .publish) else { return [] }
        let asVerification = Bool.random(using: &random)
        let first: HealthAuthorityRequest, second: HealthAuthorityRequest?
        do {
            if asVerification {
                first = Self.request(.verify, verify, try ChaffRequest.verifyBody(using: &random), settings)
                second = nil
            } else {
                first = Self.request(.certificate, certificate, try ChaffRequest.certificateBody(using: &random), settings)
                second = Self.request(.publish, publish, try ChaffRequest.publishBody(healthAuthorityID: healthAuthorityID,
                                                                                       using: &random), settings)
            }
        } catch {
            return [.log(.warn, "key share: no chaff: \(error)")]
        }
        sent += 1
        stage = .first(then: second)
        return [.log(.debug, "key share: chaff (\(asVerification ? "a code check" : "a certificate and a publish"))"),
                .sendChaff(first)]
    }

    private static func request(_ endpoint: PublishingEndpoint, _ url: String, _ body: String,
                                _ settings: KeyShareSettings) -> HealthAuthorityRequest {
        HealthAuthorityRequest(url: url, headers: settings.headers(for: endpoint, chaff: true), body: Array(body.utf8),
                               caFile: settings.caFile)
    }
}
